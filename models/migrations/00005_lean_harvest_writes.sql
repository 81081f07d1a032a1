-- A harvest writes four activity rows per file (one per extractor and the
-- harvestend row); every index on activities is paid four times per file.
-- Only rows that decide an outcome need a dedupe key (walk pages and
-- harvestend); extractor and download rows are written in the same
-- statement as their harvestend row and only when that row is new, so they
-- carry an empty key and stay out of the unique index. Nothing reads rows by
-- id, so the primary key index goes too (the id column stays: it orders rows
-- written in the same instant).

-- +goose Up
ALTER TABLE activities DROP CONSTRAINT activities_pkey;
ALTER TABLE activities DROP CONSTRAINT activities_dedupe_key_key;
CREATE UNIQUE INDEX activities_dedupe ON activities (dedupe_key) WHERE dedupe_key <> '';

-- Live items of a container are found through UNIQUE (container_id, path);
-- a second index on container_id cost every item insert and update.
DROP INDEX items_live;

-- Items go with their container (ON DELETE CASCADE); a second foreign key
-- to the location, and its index, cost every item insert a lookup and an
-- index entry. Deleting a location (rare) scans items instead.
ALTER TABLE items DROP CONSTRAINT items_location_id_fkey;
DROP INDEX items_location_id;

-- Items not harvested yet have no hash: they need no entry in the
-- duplicates index (a walk inserts thousands of them at a time).
DROP INDEX items_sha256;
CREATE INDEX items_sha256 ON items ((metadata->'hashes'->>'sha256'))
    WHERE deleted_at IS NULL AND (metadata->'hashes'->>'sha256') IS NOT NULL;

-- +goose Down
DROP INDEX items_sha256;
CREATE INDEX items_sha256 ON items ((metadata->'hashes'->>'sha256'))
    WHERE deleted_at IS NULL;
CREATE INDEX items_location_id ON items (location_id);
ALTER TABLE items ADD CONSTRAINT items_location_id_fkey
    FOREIGN KEY (location_id) REFERENCES locations (id) ON DELETE CASCADE;
CREATE INDEX items_live ON items (container_id) WHERE deleted_at IS NULL;
DROP INDEX activities_dedupe;
-- Rows written without a key get one, so the constraint can come back.
UPDATE activities SET dedupe_key = 'id:' || id WHERE dedupe_key = '';
ALTER TABLE activities ADD CONSTRAINT activities_dedupe_key_key UNIQUE (dedupe_key);
ALTER TABLE activities ADD PRIMARY KEY (id);
