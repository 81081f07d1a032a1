// Package postgres is the search backend that keeps its index in Postgres
// (migration 00003_search): always available, used when MEILI_URL is unset.
//
// Documents live in search_documents: doc (returned as is), flat (each
// catalogued leaf path mapped to the array of its scalar values, GIN-indexed:
// terms are jsonb containment, exists is ?|), dates (epoch seconds of date
// values: date ranges, sorts and metrics), a weighted tsvector (name A, other
// text D) and btree-indexed copies of type, name, size and last_modified.
// Full text uses websearch_to_tsquery('simple', ...) with the last word also
// matched as a prefix, ranks with ts_rank_cd(..., 32) (0..1), and highlights
// with ts_headline. Every user value is a query parameter; field names are
// checked against the catalogue (search_fields) before they reach SQL, and
// then only as parameters too. Numeric and date casts are guarded by CASE on
// jsonb_typeof, so a stray string never makes a query fail.
//
// The package registers itself with search.Register as "postgres".
package postgres
