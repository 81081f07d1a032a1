-- Teaching a person from reference pictures (issue 44, docs/people.md):
-- a reference picture, once a worker described it (status ready), names
-- the faces already in the archive that match it, once: applied says it
-- did. The picture and its face crop are keys of the artifact store
-- (people/<person>/...), no longer paths below DATA_DIR.

-- +goose Up
ALTER TABLE person_references ADD COLUMN applied boolean NOT NULL DEFAULT false;
ALTER TABLE person_references ADD COLUMN described_at timestamptz;
CREATE INDEX person_references_unapplied ON person_references (id) WHERE status = 'ready' AND NOT applied;
CREATE INDEX person_references_picture ON person_references (picture);

-- +goose Down
DROP INDEX person_references_picture;
DROP INDEX person_references_unapplied;
ALTER TABLE person_references DROP COLUMN described_at;
ALTER TABLE person_references DROP COLUMN applied;
