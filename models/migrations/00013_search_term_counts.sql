-- Terms aggregations over every visible document (no query, no filter: the
-- facets a search page opens with, and analytics) read counts kept as the
-- documents change, instead of counting a million rows per request:
--   search_term_counts  signed counts of documents by visibility class,
--                       column and value. Statement triggers on
--                       search_documents append one row per (vis, column,
--                       value) a statement changed, in the writing
--                       transaction, so the counts are exactly what that
--                       transaction's documents are (folded false);
--                       Maintain (workers) folds those rows into one per
--                       key (folded true), so reads sum a few rows per key.
-- The counted columns are the low-cardinality string columns a terms
-- aggregation reads (not id and name: one value per document).

-- +goose Up
CREATE TABLE search_term_counts (
    vis integer NOT NULL,
    col text NOT NULL,
    k   text NOT NULL,
    n   bigint NOT NULL,
    folded boolean NOT NULL DEFAULT false
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000);
CREATE INDEX search_term_counts_col ON search_term_counts (col, vis);
CREATE UNIQUE INDEX search_term_counts_folded ON search_term_counts (col, vis, k) WHERE folded;

-- +goose StatementBegin
CREATE FUNCTION search_count_terms() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO search_term_counts (vis, col, k, n)
        SELECT r.vis, c.col, c.k, count(*)
        FROM new_rows r, LATERAL (VALUES ('type', r.type), ('extension', r.extension), ('mime_type', r.mime_type),
            ('location_id', r.location_id), ('location_name', r.location_name),
            ('container_id', r.container_id), ('container_name', r.container_name)) AS c(col, k)
        GROUP BY 1, 2, 3;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO search_term_counts (vis, col, k, n)
        SELECT r.vis, c.col, c.k, -count(*)
        FROM old_rows r, LATERAL (VALUES ('type', r.type), ('extension', r.extension), ('mime_type', r.mime_type),
            ('location_id', r.location_id), ('location_name', r.location_name),
            ('container_id', r.container_id), ('container_name', r.container_name)) AS c(col, k)
        GROUP BY 1, 2, 3;
    ELSE
        INSERT INTO search_term_counts (vis, col, k, n)
        SELECT r.vis, c.col, c.k, sum(r.n)
        FROM (SELECT 1 AS n, vis, type, extension, mime_type, location_id, location_name, container_id, container_name FROM new_rows
              UNION ALL
              SELECT -1, vis, type, extension, mime_type, location_id, location_name, container_id, container_name FROM old_rows) r,
             LATERAL (VALUES ('type', r.type), ('extension', r.extension), ('mime_type', r.mime_type),
            ('location_id', r.location_id), ('location_name', r.location_name),
            ('container_id', r.container_id), ('container_name', r.container_name)) AS c(col, k)
        GROUP BY 1, 2, 3
        HAVING sum(r.n) <> 0;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION search_reset_term_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- DELETE, not TRUNCATE: a TRUNCATE that lists both tables would fail.
    DELETE FROM search_term_counts;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER search_documents_count_inserts AFTER INSERT ON search_documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_count_terms();
CREATE TRIGGER search_documents_count_updates AFTER UPDATE ON search_documents
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_count_terms();
CREATE TRIGGER search_documents_count_deletes AFTER DELETE ON search_documents
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_count_terms();
CREATE TRIGGER search_documents_count_truncates AFTER TRUNCATE ON search_documents
    FOR EACH STATEMENT EXECUTE FUNCTION search_reset_term_counts();

-- The counts of the documents already indexed (the triggers hold writers
-- off until this transaction commits).
INSERT INTO search_term_counts (vis, col, k, n, folded)
SELECT r.vis, c.col, c.k, count(*), true
FROM search_documents r, LATERAL (VALUES ('type', r.type), ('extension', r.extension), ('mime_type', r.mime_type),
    ('location_id', r.location_id), ('location_name', r.location_name),
    ('container_id', r.container_id), ('container_name', r.container_name)) AS c(col, k)
GROUP BY 1, 2, 3;

-- +goose Down
DROP TRIGGER search_documents_count_truncates ON search_documents;
DROP TRIGGER search_documents_count_deletes ON search_documents;
DROP TRIGGER search_documents_count_updates ON search_documents;
DROP TRIGGER search_documents_count_inserts ON search_documents;
DROP FUNCTION search_reset_term_counts();
DROP FUNCTION search_count_terms();
DROP TABLE search_term_counts;
