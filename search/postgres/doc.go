// Package postgres is the search backend that keeps its index in Postgres
// (migration 00003_search): always available, used when MEILI_URL is unset.
// It registers itself with search.Register as "postgres".
//
// Each document is split by what queries read, so that no query scans rows
// wider than it needs: search_documents is the narrow core (visibility
// class, base fields with btree-indexed sorts and ranges on size,
// last_modified and name, and keys, the ids of the leaf paths the document
// has); search_fulltext holds the same columns plus the weighted tsvector
// and is what text searches read, alone; search_flat maps each catalogued
// leaf path to its values (GIN jsonb_path_ops: terms are containment) and
// date paths to epoch seconds; search_numbers holds one row per number and
// per date of each path (nested ranges are btree range scans);
// search_sources holds the document results return, read for the page only.
// Segments live in one table, search_segments.
//
// Visibility is a class: search_visibility numbers the distinct pairs of
// group lists, a search reads the classes its user may see, and rows are
// checked with vis = ANY(classes). Paths are numbered in search_paths
// (exists and hit counts are keys && ids). Both dictionaries only grow, so
// their ids are cached for the life of the process.
//
// Full text uses websearch_to_tsquery('simple', ...) over each value and its
// split form ("holiday_video.mp4" also indexes holiday, video, mp4), with the
// last word also matched as a prefix; ts_rank_cd(..., 32) gives scores in
// 0..1 and ts_headline the <em> highlights of the fields searched. Every user
// value reaches SQL as a parameter; field names are checked against the
// catalogue (search_fields) and are parameters too. Numeric and date casts
// are guarded by CASE on jsonb_typeof, so a string where a number is
// expected is skipped, never an error.
//
// Searches run as unnamed statements planned with their actual values, and
// the page, the count and the aggregations run at once; aggregations over
// base columns share one GROUPING SETS scan. total_hits is exact up to
// ExactTotalLimit (default 1,000) and estimated beyond from a fixed block
// sample of about 8,000 rows, as the reference allows ("approximate"). A
// text search ranks every match to find its page, and counts them in the
// same statement: its total_hits is always exact (its hit counts follow the
// rule above).
package postgres
