-- A compilation's entry is an item or a moment of it (in and out points,
-- seconds): the same item may be in a compilation several times, as
-- different moments. An entry has its own id; the whole item is in a
-- compilation at most once, and each moment of it once.

-- +goose Up
ALTER TABLE compilation_items ADD COLUMN entry_id text;
UPDATE compilation_items SET entry_id = md5(compilation_id || ':' || item_id);
ALTER TABLE compilation_items ALTER COLUMN entry_id SET NOT NULL;
ALTER TABLE compilation_items ADD COLUMN in_point double precision, ADD COLUMN out_point double precision,
    ADD CONSTRAINT compilation_items_moment CHECK ((in_point IS NULL) = (out_point IS NULL) AND (in_point IS NULL OR (in_point >= 0 AND out_point > in_point)));
ALTER TABLE compilation_items DROP CONSTRAINT compilation_items_pkey;
ALTER TABLE compilation_items ADD PRIMARY KEY (compilation_id, entry_id);
CREATE UNIQUE INDEX compilation_items_once ON compilation_items (compilation_id, item_id, coalesce(in_point, -1), coalesce(out_point, -1));

-- +goose Down
DELETE FROM compilation_items WHERE in_point IS NOT NULL;
DROP INDEX compilation_items_once;
ALTER TABLE compilation_items DROP CONSTRAINT compilation_items_pkey;
ALTER TABLE compilation_items ADD PRIMARY KEY (compilation_id, item_id);
ALTER TABLE compilation_items DROP CONSTRAINT compilation_items_moment;
ALTER TABLE compilation_items DROP COLUMN in_point, DROP COLUMN out_point, DROP COLUMN entry_id;
