-- A job's harvestend rows (one an item it finished) leave the
-- (request_id, item_id) index of the other activity rows: the unique
-- activities_end index has the same key for them, and every harvested file
-- paid for its entry twice (about a fifth of the CPU of writing its
-- harvestend row, 20,000 rows replayed, backend CPU). Statements that read
-- a job's or an item's rows of every kind say so as
-- (kind = 'harvestend' OR kind <> 'harvestend'), which Postgres answers
-- from both indexes at once (a bitmap OR); activity_rows reads the two
-- kinds of rows in arms of their own. Rebuilding the index reads the
-- activity rows once.

-- +goose Up
DROP INDEX activities_request_item;
CREATE INDEX activities_request_item ON activities (request_id, item_id) WHERE kind <> 'harvestend';

CREATE OR REPLACE VIEW activity_rows AS
SELECT a.id, a.dedupe_key, a.ts, a.kind, a.request_id,
       coalesce(nullif(a.location_id, ''), j.location_id, '') AS location_id,
       coalesce(nullif(a.container_id, ''), j.container_id, '') AS container_id,
       coalesce(nullif(a.harvest_id, ''), a.request_id) AS harvest_id,
       coalesce(nullif(a.profile_id, ''), j.profile_id, '') AS profile_id,
       CASE WHEN cardinality(a.extractors) = 0 THEN coalesce(j.extractors, '{}') ELSE a.extractors END AS extractors,
       a.name, a.source, a.item_id, a.count, a.bytes, a.error, a.error_hash, a.duration
FROM activities a LEFT JOIN jobs j ON j.request_id = a.request_id
WHERE a.kind <> 'harvestend'
UNION ALL
SELECT a.id, a.dedupe_key, a.ts, a.kind, a.request_id,
       coalesce(nullif(a.location_id, ''), j.location_id, '') AS location_id,
       coalesce(nullif(a.container_id, ''), j.container_id, '') AS container_id,
       coalesce(nullif(a.harvest_id, ''), a.request_id) AS harvest_id,
       coalesce(nullif(a.profile_id, ''), j.profile_id, '') AS profile_id,
       CASE WHEN cardinality(a.extractors) = 0 THEN coalesce(j.extractors, '{}') ELSE a.extractors END AS extractors,
       a.name, a.source, a.item_id, a.count, a.bytes, a.error, a.error_hash, a.duration
FROM activities a LEFT JOIN jobs j ON j.request_id = a.request_id
WHERE a.kind = 'harvestend'
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

-- +goose Down
CREATE OR REPLACE VIEW activity_rows AS
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
DROP INDEX activities_request_item;
CREATE INDEX activities_request_item ON activities (request_id, item_id);
