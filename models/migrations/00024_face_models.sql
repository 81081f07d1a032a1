-- Face descriptors of another model (issue 44, docs/people.md "Another
-- descriptor model"): the vision sidecar's descriptors changed from
-- Human's faceres alone (1024 numbers) to faceres with faceres-deep (2048),
-- and may change again. Descriptors of different models are never
-- compared, so the assigner needs each face's and each reference
-- picture's model; and a face described again with a new model is
-- recognised as the same face by its box (its code cannot say), so a
-- person's face keeps the box it was assigned with.

-- +goose Up
ALTER TABLE person_faces ADD COLUMN model text NOT NULL DEFAULT '';
ALTER TABLE person_faces ADD COLUMN box_left real NOT NULL DEFAULT 0;
ALTER TABLE person_faces ADD COLUMN box_top real NOT NULL DEFAULT 0;
ALTER TABLE person_faces ADD COLUMN box_width real NOT NULL DEFAULT 0;
ALTER TABLE person_faces ADD COLUMN box_height real NOT NULL DEFAULT 0;
-- The faces assigned so far take the model and box of the descriptor they
-- were assigned from.
UPDATE person_faces pf SET model = fd.model, box_left = fd.box_left, box_top = fd.box_top, box_width = fd.box_width,
    box_height = fd.box_height
FROM face_descriptors fd
WHERE fd.item_id = pf.item_id AND fd.extractor = pf.extractor AND fd.face = pf.face AND fd.created_at = pf.described_at;

-- the model of the descriptor of a described reference picture
ALTER TABLE person_references ADD COLUMN model text NOT NULL DEFAULT '';
-- Reference pictures described so far were described by the model of the
-- faces harvested then: the newest face's.
UPDATE person_references SET model = coalesce(
    (SELECT fd.model FROM face_descriptors fd ORDER BY fd.created_at DESC LIMIT 1), '')
WHERE descriptor IS NOT NULL;

-- +goose Down
ALTER TABLE person_references DROP COLUMN model;
ALTER TABLE person_faces DROP COLUMN box_height;
ALTER TABLE person_faces DROP COLUMN box_width;
ALTER TABLE person_faces DROP COLUMN box_top;
ALTER TABLE person_faces DROP COLUMN box_left;
ALTER TABLE person_faces DROP COLUMN model;
