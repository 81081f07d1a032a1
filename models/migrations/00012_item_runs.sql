-- An item's results hold each extractor's latest run. The runs of the
-- item's latest harvest share its time (last_harvested) and request
-- (last_request_id, new): their entries keep only the version, as a string,
-- or {"version", "error"} for a failed run. Entries of earlier harvests
-- keep their time and request ({"version", "error", "ran_at",
-- "request_id"}), written out when a later harvest of other extractors
-- moves last_harvested on. models.Item.Runs reads both.

-- +goose Up
ALTER TABLE items ADD COLUMN last_request_id text NOT NULL DEFAULT '';

-- +goose Down
UPDATE items i SET results = (
    SELECT coalesce(jsonb_object_agg(e.k, CASE jsonb_typeof(e.v)
        WHEN 'string' THEN jsonb_build_object('version', e.v, 'error', '', 'ran_at', i.last_harvested, 'request_id', i.last_request_id)
        ELSE jsonb_build_object('error', '', 'ran_at', i.last_harvested, 'request_id', i.last_request_id) || e.v END), '{}')
    FROM jsonb_each(i.results) AS e(k, v))
WHERE i.results <> '{}';
ALTER TABLE items DROP COLUMN last_request_id;
