-- People across the archive (issue 44, docs/people.md): every described
-- face (face_descriptors, 00017) belongs to a person, the same in every
-- item; persons have a name once someone gives them one.
--
-- The faces' descriptors stay in face_descriptors; a person's face keeps
-- here only a 32-byte code of its descriptor (internal/faceindex: the
-- nearest-face index is rebuilt from these codes) and what lists and
-- pages need without reading the item (its container, its weight, its
-- times, its crop). A face whose person was deleted stays here as an
-- unknown face without code, so that harvesting its item again leaves it
-- unknown.

-- +goose Up
CREATE TABLE persons (
    id         text PRIMARY KEY CHECK (length(id) <= 32),
    name       text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
    -- named by someone or taught from pictures
    is_known   boolean NOT NULL DEFAULT false,
    hidden     boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX persons_name ON persons (lower(name)) WHERE name <> '';

CREATE SEQUENCE person_faces_code_seq;
CREATE TABLE person_faces (
    -- the face's handle in the nearest-face index
    id           bigserial PRIMARY KEY,
    item_id      text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    extractor    text NOT NULL,
    face         integer NOT NULL,
    container_id text NOT NULL,
    -- NULL: an unknown face (its person was deleted, its descriptor too)
    person_id    text REFERENCES persons (id) ON DELETE SET NULL,
    -- the item's own person of the face (face_descriptors.person_id)
    local_person text NOT NULL DEFAULT '',
    -- faces found that this described face stands for: 1 in a picture,
    -- the faces of its person's run in a video
    weight       integer NOT NULL DEFAULT 1,
    -- video: the face's frame, and the first and last frame of its run (ms)
    time_ms      bigint,
    first_ms     bigint,
    last_ms      bigint,
    -- the face's box area in pixels (a person's best face is the largest)
    area         real NOT NULL DEFAULT 0,
    thumbnail    text NOT NULL DEFAULT '',
    -- internal/faceindex code of the descriptor; NULL for an unknown face
    code         bytea CHECK (code IS NULL OR octet_length(code) = 32),
    -- face_descriptors.created_at of the descriptor it was assigned from:
    -- a newer descriptor (the item harvested again) is assigned again
    described_at timestamptz NOT NULL,
    -- put on its person by a user: kept there on the next harvest
    pinned       boolean NOT NULL DEFAULT false,
    -- bumped by every change of code: the index catches up from it
    seq          bigint NOT NULL DEFAULT nextval('person_faces_code_seq'),
    UNIQUE (item_id, extractor, face)
);
-- a person's faces, largest first: counts, covers, the person's items
CREATE INDEX person_faces_person ON person_faces (person_id, area DESC, id);
CREATE INDEX person_faces_seq ON person_faces (seq);

-- "not this person": the face is never put on that person again, across
-- harvests of its item.
CREATE TABLE person_exclusions (
    item_id    text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    extractor  text NOT NULL,
    face       integer NOT NULL,
    person_id  text NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (item_id, extractor, face, person_id)
);
CREATE INDEX person_exclusions_person ON person_exclusions (person_id);

-- Pictures a person was taught from: each is described by a worker
-- (status pending -> ready or failed), and its descriptor then names the
-- faces that match it.
CREATE TABLE person_references (
    id         bigserial PRIMARY KEY,
    person_id  text NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
    -- the picture, relative to DATA_DIR; its face crop beside it
    picture    text NOT NULL,
    thumbnail  text NOT NULL DEFAULT '',
    status     text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
    error      text NOT NULL DEFAULT '',
    descriptor bytea,
    code       bytea CHECK (code IS NULL OR octet_length(code) = 32),
    created_by text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX person_references_person ON person_references (person_id);
CREATE INDEX person_references_pending ON person_references (id) WHERE status = 'pending';

-- A person's faces by container (visibility is by location and
-- container): what the People list adds up for a caller, kept by the
-- writers of person_faces.
CREATE TABLE person_containers (
    person_id    text NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
    container_id text NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    location_id  text NOT NULL,
    faces        integer NOT NULL,
    items        integer NOT NULL,
    first_seen   timestamptz,
    last_seen    timestamptz,
    PRIMARY KEY (person_id, container_id)
);
CREATE INDEX person_containers_container ON person_containers (container_id);

-- Items whose faces changed since their people were last worked out:
-- filled by the triggers below whoever writes face_descriptors or deletes
-- an item, drained by the workers' assigners (package people).
CREATE TABLE people_pending (
    item_id text PRIMARY KEY,
    since   timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- +goose StatementBegin
CREATE FUNCTION people_faces_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO people_pending (item_id) SELECT DISTINCT item_id FROM old_rows ON CONFLICT (item_id) DO NOTHING;
    ELSE
        INSERT INTO people_pending (item_id) SELECT DISTINCT item_id FROM new_rows ON CONFLICT (item_id) DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER face_descriptors_people_inserts AFTER INSERT ON face_descriptors
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION people_faces_changed();
CREATE TRIGGER face_descriptors_people_updates AFTER UPDATE ON face_descriptors
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION people_faces_changed();
CREATE TRIGGER face_descriptors_people_deletes AFTER DELETE ON face_descriptors
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION people_faces_changed();

-- An item deleted (or back) changes its people's counts.
-- +goose StatementBegin
CREATE FUNCTION people_item_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM person_faces WHERE item_id = NEW.id) THEN
        INSERT INTO people_pending (item_id) VALUES (NEW.id) ON CONFLICT (item_id) DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER items_people_deleted AFTER UPDATE OF deleted_at ON items
    FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at) EXECUTE FUNCTION people_item_deleted();

-- Faces described before this migration get their people.
INSERT INTO people_pending (item_id) SELECT DISTINCT item_id FROM face_descriptors ON CONFLICT (item_id) DO NOTHING;

-- +goose Down
DROP TRIGGER items_people_deleted ON items;
DROP FUNCTION people_item_deleted();
DROP TRIGGER face_descriptors_people_deletes ON face_descriptors;
DROP TRIGGER face_descriptors_people_updates ON face_descriptors;
DROP TRIGGER face_descriptors_people_inserts ON face_descriptors;
DROP FUNCTION people_faces_changed();
DROP TABLE people_pending;
DROP TABLE person_containers;
DROP TABLE person_references;
DROP TABLE person_exclusions;
DROP TABLE person_faces;
DROP SEQUENCE person_faces_code_seq;
DROP TABLE persons;
