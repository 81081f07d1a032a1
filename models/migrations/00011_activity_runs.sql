-- An item's harvest in a job is one activities row (was one per extractor
-- besides): the harvestend row carries the extractors that ran without
-- error (runs), how long each took (run_ms) and when each ended, in
-- microseconds before the row's ts (run_end_us). Failed extractor runs,
-- downloads and walk pages keep rows of their own. The harvestend row
-- leaves the job's columns (location, container, harvest, profile,
-- extractors) to the jobs row, and is keyed by (request, item).
--
-- activity_rows is what readers see: every row as before, the folded runs
-- unfolded into extractor rows, the job's columns filled in.

-- +goose Up
ALTER TABLE activities ADD COLUMN runs text[], ADD COLUMN run_ms integer[], ADD COLUMN run_end_us bigint[];
CREATE UNIQUE INDEX activities_end ON activities (request_id, item_id) WHERE kind = 'harvestend';
DROP INDEX activities_request;
CREATE INDEX activities_request ON activities (request_id, kind, name, error_hash) WHERE kind <> 'harvestend';
DROP INDEX activities_item;
CREATE INDEX activities_item ON activities (item_id, request_id);

CREATE VIEW activity_rows AS
SELECT a.id, a.dedupe_key, a.ts, a.kind, a.request_id,
       coalesce(nullif(a.location_id, ''), j.location_id, '') AS location_id,
       coalesce(nullif(a.container_id, ''), j.container_id, '') AS container_id,
       coalesce(nullif(a.harvest_id, ''), a.request_id) AS harvest_id,
       coalesce(nullif(a.profile_id, ''), j.profile_id, '') AS profile_id,
       CASE WHEN cardinality(a.extractors) = 0 THEN coalesce(j.extractors, '{}') ELSE a.extractors END AS extractors,
       a.name, a.source, a.item_id, a.count, a.bytes, a.error, a.error_hash, a.duration
FROM activities a LEFT JOIN jobs j ON j.request_id = a.request_id
UNION ALL
SELECT a.id, '' AS dedupe_key, a.ts - r.end_us * interval '1 microsecond' AS ts, 'extractor' AS kind, a.request_id,
       coalesce(j.location_id, '') AS location_id,
       coalesce(j.container_id, '') AS container_id,
       a.request_id AS harvest_id,
       coalesce(j.profile_id, '') AS profile_id,
       coalesce(j.extractors, '{}') AS extractors,
       r.name, a.name AS source, a.item_id, 1::bigint AS count, a.bytes, ''::text AS error, ''::text AS error_hash,
       r.ms::bigint AS duration
FROM activities a LEFT JOIN jobs j ON j.request_id = a.request_id
CROSS JOIN LATERAL unnest(a.runs, a.run_ms, a.run_end_us) AS r(name, ms, end_us)
WHERE a.kind = 'harvestend' AND a.runs IS NOT NULL;

-- Items are written once per harvest and updated when harvested again: no
-- room is kept in their pages for updates.
ALTER TABLE items SET (fillfactor = 100);

-- +goose Down
ALTER TABLE items SET (fillfactor = 70);
DROP VIEW activity_rows;
INSERT INTO activities (dedupe_key, ts, kind, request_id, location_id, container_id, harvest_id, profile_id, extractors,
    name, source, item_id, count, bytes, error, error_hash, duration)
SELECT '', a.ts - r.end_us * interval '1 microsecond', 'extractor', a.request_id,
       coalesce(j.location_id, ''), coalesce(j.container_id, ''), a.request_id, coalesce(j.profile_id, ''), coalesce(j.extractors, '{}'),
       r.name, a.name, a.item_id, 1, a.bytes, '', '', r.ms
FROM activities a LEFT JOIN jobs j ON j.request_id = a.request_id
CROSS JOIN LATERAL unnest(a.runs, a.run_ms, a.run_end_us) AS r(name, ms, end_us)
WHERE a.kind = 'harvestend' AND a.runs IS NOT NULL;
UPDATE activities a SET location_id = coalesce(j.location_id, ''), container_id = coalesce(j.container_id, ''),
       harvest_id = a.request_id, profile_id = coalesce(j.profile_id, ''), extractors = coalesce(j.extractors, '{}'),
       dedupe_key = md5(convert_to('harvestend', 'UTF8') || '\x00'::bytea || convert_to(a.request_id, 'UTF8')
                        || '\x00'::bytea || convert_to(a.item_id, 'UTF8'))
FROM jobs j WHERE j.request_id = a.request_id AND a.kind = 'harvestend' AND a.location_id = '';
DROP INDEX activities_item;
CREATE INDEX activities_item ON activities (item_id, request_id, id);
DROP INDEX activities_request;
CREATE INDEX activities_request ON activities (request_id, kind, name, error_hash);
DROP INDEX activities_end;
ALTER TABLE activities DROP COLUMN runs, DROP COLUMN run_ms, DROP COLUMN run_end_us;
