-- Words are found whatever their accents, as Meilisearch finds them and as
-- a person expects ("cafe" finds "café", "lodz" finds "Łódź", "SAVAŞÇISI"
-- finds "Savaşçısı"): the Postgres backend's text search configuration is
-- 'simple' with unaccent (a trusted extension: the database's owner may
-- create it) before it, for the words with letters outside ASCII. Words of
-- ASCII letters and digits read as before.
-- The documents and segments holding a word outside ASCII are indexed again
-- (their items marked dirty: the workers' indexers rebuild them); the
-- others have the same words under both configurations.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE TEXT SEARCH CONFIGURATION metaharvest_words (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION metaharvest_words ALTER MAPPING FOR word, numword, hword, hword_part, hword_numpart WITH unaccent, simple;
INSERT INTO search_outbox (item_id)
SELECT i.id FROM items i JOIN search_documents d ON d.id = i.id
WHERE i.deleted_at IS NULL AND octet_length(d.tsv::text) <> char_length(d.tsv::text)
UNION
SELECT i.id FROM items i JOIN search_segments s ON s.item_id = i.id
WHERE i.deleted_at IS NULL AND octet_length(s.tsv::text) <> char_length(s.tsv::text)
ON CONFLICT (item_id) DO UPDATE SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp();

-- +goose Down
INSERT INTO search_outbox (item_id)
SELECT i.id FROM items i JOIN search_documents d ON d.id = i.id
WHERE i.deleted_at IS NULL AND octet_length(d.tsv::text) <> char_length(d.tsv::text)
UNION
SELECT i.id FROM items i JOIN search_segments s ON s.item_id = i.id
WHERE i.deleted_at IS NULL AND octet_length(s.tsv::text) <> char_length(s.tsv::text)
ON CONFLICT (item_id) DO UPDATE SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp();
DROP TEXT SEARCH CONFIGURATION metaharvest_words;
