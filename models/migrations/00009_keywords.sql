-- Keyword groups: named, coloured lists of words and phrases that users
-- follow through the items' speech, captions, OCR and document text
-- (GET /api/data/keywords/hits/{item_id}). Groups belong to the platform:
-- every caller with keywords:read sees them all. Names are unique whatever
-- their case.

-- +goose Up
CREATE TABLE keyword_groups (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    -- #rrggbb, lower-case
    color      text NOT NULL,
    -- words and phrases as the user wrote them (trimmed, without duplicates)
    words      text[] NOT NULL DEFAULT '{}',
    created_by text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX keyword_groups_name_key ON keyword_groups (lower(name));

-- +goose Down
DROP TABLE keyword_groups;
