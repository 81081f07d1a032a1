-- The Postgres search backend keeps one row per item document (was five:
-- documents, fulltext, flat, numbers, sources), about a third of the space
-- and of the writes per document:
--   search_documents  the base fields as columns (filters, sorts, counts,
--                     terms aggregations), keys (the ids of the leaf paths
--                     the document has), tsv (the weighted full text), extra
--                     (the rest of the document: what results return beside
--                     the columns, and what filters, sorts and aggregations
--                     over nested fields read, through SQL/JSON paths and a
--                     jsonb_path_ops GIN index) and dates (nested date leaves
--                     in epoch seconds, NULL when there are none).
--   search_numbers    one row per number and date of the nested leaves
--                     (ranges over nested fields are index range scans); base
--                     fields have columns and no rows here.
-- (vis, column) indexes serve the filters and terms aggregations on base
-- columns by index-only scans: they are small (btree deduplication), and a
-- terms aggregation over every document reads no table.
-- The documents are rebuilt from the items: every live item is marked dirty,
-- and the workers' indexers rebuild the index after the upgrade.

-- +goose Up
DROP TABLE search_sources;
DROP TABLE search_flat;
DROP TABLE search_fulltext;
DROP TABLE search_numbers;
DROP TABLE search_documents;
DROP FUNCTION search_text(jsonb, text[]);

CREATE TABLE search_documents (
    vis            integer NOT NULL,
    size           bigint,
    last_modified  timestamptz,
    id             text PRIMARY KEY,
    type           text NOT NULL DEFAULT 'other',
    name           text NOT NULL DEFAULT '',
    extension      text NOT NULL DEFAULT '',
    mime_type      text NOT NULL DEFAULT '',
    location_id    text NOT NULL DEFAULT '',
    location_name  text NOT NULL DEFAULT '',
    container_id   text NOT NULL DEFAULT '',
    container_name text NOT NULL DEFAULT '',
    keys           integer[] NOT NULL DEFAULT '{}',
    tsv            tsvector NOT NULL,
    extra          jsonb,
    dates          jsonb
) WITH (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.05);
CREATE INDEX search_documents_vis_type ON search_documents (vis, type);
CREATE INDEX search_documents_vis_extension ON search_documents (vis, extension);
CREATE INDEX search_documents_vis_mime_type ON search_documents (vis, mime_type);
CREATE INDEX search_documents_vis_location ON search_documents (vis, location_id);
CREATE INDEX search_documents_vis_location_name ON search_documents (vis, location_name);
CREATE INDEX search_documents_vis_container ON search_documents (vis, container_id);
CREATE INDEX search_documents_vis_container_name ON search_documents (vis, container_name);
CREATE INDEX search_documents_size ON search_documents (size);
CREATE INDEX search_documents_size_desc ON search_documents (size DESC NULLS LAST);
CREATE INDEX search_documents_last_modified ON search_documents (last_modified);
CREATE INDEX search_documents_last_modified_desc ON search_documents (last_modified DESC NULLS LAST);
-- Read backwards for descending sorts too (the column is NOT NULL).
CREATE INDEX search_documents_name ON search_documents (name COLLATE "C");
CREATE INDEX search_documents_keys ON search_documents USING gin (keys) WITH (gin_pending_list_limit = 32768);
CREATE INDEX search_documents_tsv ON search_documents USING gin (tsv) WITH (gin_pending_list_limit = 32768);
CREATE INDEX search_documents_extra ON search_documents USING gin (extra jsonb_path_ops) WITH (gin_pending_list_limit = 32768);
-- The GIN indexes take new entries into a pending list that is merged into
-- the index when it is full, by the backend that fills it (inside a
-- harvest's transaction, holding up the others) or by autovacuum: a larger
-- list is merged less often and mostly by autovacuum (measured: the
-- document write of a harvest of small files went from 162 to 129 us).
-- Rare words are what users look for: the planner needs their frequencies
-- (else it estimates thousands of matches and intersects with broad
-- indexes instead of reading the few rows).
ALTER TABLE search_documents ALTER COLUMN tsv SET STATISTICS 1000;

CREATE TABLE search_numbers (
    id   text NOT NULL,
    path integer NOT NULL,
    date boolean NOT NULL,
    x    double precision NOT NULL
);
CREATE INDEX search_numbers_range ON search_numbers (path, date, x) INCLUDE (id);
CREATE INDEX search_numbers_id ON search_numbers (id, path, date, x);

-- The string values at some SQL/JSON paths of a document, for full-text
-- search restricted to fields.
-- +goose StatementBegin
CREATE FUNCTION search_text(doc jsonb, paths text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(v #>> '{}', E'\n'), '')
    FROM unnest(paths) AS p, jsonb_path_query(coalesce(doc, '{}'), p::jsonpath) AS v
    WHERE jsonb_typeof(v) = 'string'
$$;
-- +goose StatementEnd

-- The same over a flat map (segments): leaf path -> values.
-- +goose StatementBegin
CREATE FUNCTION search_text_flat(flat jsonb, keys text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(v #>> '{}', E'\n'), '')
    FROM unnest(keys) AS k,
         jsonb_array_elements(CASE WHEN jsonb_typeof(flat -> k) = 'array' THEN flat -> k ELSE '[]'::jsonb END) AS v
    WHERE jsonb_typeof(v) = 'string'
$$;
-- +goose StatementEnd

-- The outbox is emptied often and stays small: vacuum it as often.
ALTER TABLE search_outbox SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000);

INSERT INTO search_outbox (item_id) SELECT id FROM items WHERE deleted_at IS NULL
ON CONFLICT (item_id) DO UPDATE SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp();

-- +goose Down
ALTER TABLE search_outbox RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
    autovacuum_vacuum_insert_scale_factor, autovacuum_vacuum_insert_threshold);
DROP FUNCTION search_text_flat(jsonb, text[]);
DROP FUNCTION search_text(jsonb, text[]);
DROP TABLE search_numbers;
DROP TABLE search_documents;

CREATE TABLE search_documents (
    vis              integer NOT NULL,
    size             bigint,
    last_modified    timestamptz,
    indexed_at       timestamptz NOT NULL DEFAULT now(),
    id               text PRIMARY KEY,
    type             text NOT NULL DEFAULT 'other',
    name             text NOT NULL DEFAULT '',
    extension        text NOT NULL DEFAULT '',
    mime_type        text NOT NULL DEFAULT '',
    location_id      text NOT NULL DEFAULT '',
    location_name    text NOT NULL DEFAULT '',
    container_id     text NOT NULL DEFAULT '',
    container_name   text NOT NULL DEFAULT '',
    keys             integer[] NOT NULL DEFAULT '{}'
);
CREATE INDEX search_documents_type ON search_documents (type);
CREATE INDEX search_documents_location ON search_documents (location_id);
CREATE INDEX search_documents_container ON search_documents (container_id);
CREATE INDEX search_documents_size ON search_documents (size);
CREATE INDEX search_documents_size_desc ON search_documents (size DESC NULLS LAST);
CREATE INDEX search_documents_last_modified ON search_documents (last_modified);
CREATE INDEX search_documents_last_modified_desc ON search_documents (last_modified DESC NULLS LAST);
CREATE INDEX search_documents_name ON search_documents (name COLLATE "C");
CREATE INDEX search_documents_name_desc ON search_documents (name COLLATE "C" DESC NULLS LAST);
CREATE INDEX search_documents_keys ON search_documents USING gin (keys) WITH (gin_pending_list_limit = 32768);

CREATE TABLE search_fulltext (
    vis              integer NOT NULL,
    size             bigint,
    last_modified    timestamptz,
    id               text PRIMARY KEY,
    type             text NOT NULL DEFAULT 'other',
    name             text NOT NULL DEFAULT '',
    extension        text NOT NULL DEFAULT '',
    mime_type        text NOT NULL DEFAULT '',
    location_id      text NOT NULL DEFAULT '',
    location_name    text NOT NULL DEFAULT '',
    container_id     text NOT NULL DEFAULT '',
    container_name   text NOT NULL DEFAULT '',
    keys             integer[] NOT NULL DEFAULT '{}',
    tsv              tsvector NOT NULL
);
CREATE INDEX search_fulltext_tsv ON search_fulltext USING gin (tsv);
CREATE INDEX search_fulltext_type ON search_fulltext (type);
CREATE INDEX search_fulltext_keys ON search_fulltext USING gin (keys);

CREATE TABLE search_flat (
    id    text PRIMARY KEY,
    flat  jsonb NOT NULL DEFAULT '{}',
    dates jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX search_flat_flat ON search_flat USING gin (flat jsonb_path_ops);

CREATE TABLE search_numbers (
    id   text NOT NULL,
    path integer NOT NULL,
    date boolean NOT NULL,
    x    double precision NOT NULL
);
CREATE INDEX search_numbers_range ON search_numbers (path, date, x) INCLUDE (id);
CREATE INDEX search_numbers_id ON search_numbers (id, path, date, x);

CREATE TABLE search_sources (
    id  text PRIMARY KEY,
    doc jsonb NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION search_text(flat jsonb, keys text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(v #>> '{}', E'\n'), '')
    FROM unnest(keys) AS k,
         jsonb_array_elements(CASE WHEN jsonb_typeof(flat -> k) = 'array' THEN flat -> k ELSE '[]'::jsonb END) AS v
    WHERE jsonb_typeof(v) = 'string'
$$;
-- +goose StatementEnd

INSERT INTO search_outbox (item_id) SELECT id FROM items WHERE deleted_at IS NULL
ON CONFLICT (item_id) DO UPDATE SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp();
