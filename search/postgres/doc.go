// Package postgres is the search backend that keeps its index in Postgres
// (migration 00003_search): always available, used when MEILI_URL is unset.
// It registers itself with search.Register as "postgres".
//
// Each document is split by what queries read: search_documents holds
// visibility, the base fields (btree-indexed sorts and ranges on size,
// last_modified and name) and the weighted tsvector; search_flat maps each
// catalogued leaf path to its values (GIN: terms are jsonb containment,
// exists is ?|) and date paths to epoch seconds; search_sources holds the
// document results return, read for the page only. Segments live in one
// table, search_segments.
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
// the page, the count and each aggregation run at once. total_hits is exact
// up to ExactTotalLimit (default 1,000) and estimated beyond from a fixed
// block sample of about 8,000 rows, as the reference allows ("approximate").
package postgres
