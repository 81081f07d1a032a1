-- Search: the Postgres search backend's index (documents, segments, field
-- catalogue), the indexing outbox used by every backend, and saved searches.

-- +goose Up

-- Item documents, split by column groups so that each kind of query reads
-- only what it needs:
--   search_documents  one row per document: visibility, the base fields
--                     (sorts and ranges on size, last_modified and name use
--                     btree indexes in both directions, missing values last)
--                     and the weighted full text (name A, the rest D).
--                     Fixed-width columns come first and tsv last, so that
--                     scans checking visibility or a base field stay cheap.
--                     public is true when no group restricts the document:
--                     the common case, and one the planner has statistics for.
--   search_flat       flat maps each catalogued leaf path to the array of its
--                     distinct scalar values (terms, exists, terms
--                     aggregations: GIN); dates maps date-valued paths to
--                     arrays of epoch seconds (date ranges, sorts, metrics).
--   search_sources    the documents as results return them.
CREATE TABLE search_documents (
    public           boolean GENERATED ALWAYS AS (cardinality(location_groups) = 0 AND cardinality(container_groups) = 0) STORED,
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
    location_groups  text[] NOT NULL DEFAULT '{}',
    container_groups text[] NOT NULL DEFAULT '{}',
    tsv              tsvector NOT NULL
);
CREATE INDEX search_documents_tsv ON search_documents USING gin (tsv);
CREATE INDEX search_documents_type ON search_documents (type);
CREATE INDEX search_documents_location ON search_documents (location_id);
CREATE INDEX search_documents_container ON search_documents (container_id);
CREATE INDEX search_documents_size ON search_documents (size);
CREATE INDEX search_documents_size_desc ON search_documents (size DESC NULLS LAST);
CREATE INDEX search_documents_last_modified ON search_documents (last_modified);
CREATE INDEX search_documents_last_modified_desc ON search_documents (last_modified DESC NULLS LAST);
CREATE INDEX search_documents_name ON search_documents (name COLLATE "C");
CREATE INDEX search_documents_name_desc ON search_documents (name COLLATE "C" DESC NULLS LAST);

CREATE TABLE search_flat (
    id    text PRIMARY KEY,
    flat  jsonb NOT NULL DEFAULT '{}',
    dates jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX search_flat_flat ON search_flat USING gin (flat);

CREATE TABLE search_sources (
    id  text PRIMARY KEY,
    doc jsonb NOT NULL
);

-- Segments of videos (small: their document stays inline), with the
-- visibility lists of their item.
CREATE TABLE search_segments (
    id               text PRIMARY KEY,
    item_id          text NOT NULL,
    time             double precision NOT NULL DEFAULT 0,
    doc              jsonb NOT NULL,
    flat             jsonb NOT NULL DEFAULT '{}',
    dates            jsonb NOT NULL DEFAULT '{}',
    tsv              tsvector NOT NULL,
    location_groups  text[] NOT NULL DEFAULT '{}',
    container_groups text[] NOT NULL DEFAULT '{}',
    public           boolean GENERATED ALWAYS AS (cardinality(location_groups) = 0 AND cardinality(container_groups) = 0) STORED,
    indexed_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX search_segments_item ON search_segments (item_id, time);
CREATE INDEX search_segments_time ON search_segments (time);
CREATE INDEX search_segments_tsv ON search_segments USING gin (tsv);
CREATE INDEX search_segments_flat ON search_segments USING gin (flat);

-- The catalogue of known field paths per scope ('items', 'segments');
-- kinds is a bit set: 1 string, 2 number, 4 boolean, 8 date.
CREATE TABLE search_fields (
    scope text NOT NULL,
    path  text NOT NULL,
    kinds smallint NOT NULL,
    PRIMARY KEY (scope, path)
);

-- Items whose search document is stale. seq changes on every mark, so that
-- a drainer only removes the row it indexed; claimed_until/claim_token keep
-- two drainers off the same rows.
CREATE SEQUENCE search_outbox_seq;
CREATE TABLE search_outbox (
    item_id       text PRIMARY KEY,
    seq           bigint NOT NULL DEFAULT nextval('search_outbox_seq'),
    enqueued_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    claimed_until timestamptz,
    claim_token   text
);
CREATE INDEX search_outbox_seq_idx ON search_outbox (seq);
CREATE INDEX search_outbox_claim ON search_outbox (claim_token) WHERE claim_token IS NOT NULL;

-- Saved searches: params is the URL query string of the search; names are
-- unique per user (case-insensitively).
CREATE TABLE saved_searches (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text NOT NULL,
    params     text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX saved_searches_user_name ON saved_searches (user_id, lower(name));

-- The text full-text search indexes for a value: the value itself (so that
-- "video.mp4" matches as one word) and the value with every non-alphanumeric
-- run turned into a space (so that "holiday_video.mp4" matches "video").
-- +goose StatementBegin
CREATE FUNCTION search_tsv_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT t || E'\n' || regexp_replace(t, '[^[:alnum:]]+', ' ', 'g')
$$;
-- +goose StatementEnd

-- The string values of some leaf paths of a flat map, for full-text search
-- restricted to fields.
-- +goose StatementBegin
CREATE FUNCTION search_text(flat jsonb, keys text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(v #>> '{}', E'\n'), '')
    FROM unnest(keys) AS k,
         jsonb_array_elements(CASE WHEN jsonb_typeof(flat -> k) = 'array' THEN flat -> k ELSE '[]'::jsonb END) AS v
    WHERE jsonb_typeof(v) = 'string'
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION search_text(jsonb, text[]);
DROP FUNCTION search_tsv_text(text);
DROP TABLE saved_searches;
DROP TABLE search_outbox;
DROP SEQUENCE search_outbox_seq;
DROP TABLE search_fields;
DROP TABLE search_segments;
DROP TABLE search_sources;
DROP TABLE search_flat;
DROP TABLE search_documents;
