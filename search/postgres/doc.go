// Package postgres is the search backend that keeps its index in Postgres
// (migrations 00003_search and 00010_search_one_table): always available,
// used when MEILI_URL is unset. It registers itself with search.Register
// as "postgres".
//
// # Layout
//
// One row per item document in search_documents: the base fields as
// columns (vis, size, last_modified, type, name, extension, mime_type,
// location and container ids and names), keys (the ids of the leaf paths
// the document has, for exists and hit counts), tsv (the weighted words),
// extra (the rest of the document: what results return beside the
// columns, and what filters, sorts and aggregations over nested fields
// read through SQL/JSON paths, lax so that lists on the way are
// unwrapped, with a jsonb_path_ops GIN index for terms) and dates (nested
// date leaves in epoch seconds). search_numbers holds one row per nested
// number and date (nested ranges are btree range scans); base fields have
// columns instead, and so have the store extractor's copies of name, size
// and extension, which queries read from those columns. Results are the
// columns and extra put back together, exactly the documents indexed.
// Segments live in search_segments, whole (document, flat map of leaf
// path -> values, words).
//
// Visibility is a class: search_visibility numbers the distinct pairs of
// group lists, a search reads the classes its user may see, and rows are
// checked with vis = ANY(classes); (vis, column) indexes answer counts and
// terms aggregations over the visible documents by index-only scans.
// Terms aggregations over every visible document (no query, no filter)
// read search_term_counts instead: signed counts by class, column and
// value, appended by statement triggers on search_documents in the
// writing transaction and folded by Maintain (migration 00013).
// Paths are numbered in search_paths. Both dictionaries only grow, so
// their ids are cached for the life of the process.
//
// # Writing
//
// The engine is a search.TxIndexer: harvests write documents in their own
// transactions (searchable at commit), and so does the outbox drain, one
// transaction per batch. The dictionaries are written before, on the
// engine's own connections. GIN entries go to the indexes' pending lists
// (large, so that harvests append) and Maintain merges them when writes
// pause and every few seconds, so that searches read short lists. A
// change of groups re-classes documents in the changing transaction
// (search.VisibilityRefresher).
//
// # Searching
//
// Words: names are indexed as written and split at every non-alphanumeric
// run ("holiday_video.mp4" also gives holiday, video, mp4), the rest of
// the text split only; dates and digests are no words (a query that is one
// digest finds its items through extra). A query matches as written or
// with the punctuation inside its words turned into spaces, the last word
// also as a prefix (but not the tail of a compound). ts_rank_cd(..., 32)
// gives scores in 0..1 and ts_headline the <em> highlights of the fields
// searched. Every user value reaches SQL as a parameter; field names are
// checked against the catalogue (search_fields) and are parameters too.
// Numeric and date casts are guarded by CASE on jsonb_typeof, so a string
// where a number is expected is skipped, never an error.
//
// Searches run as unnamed statements planned with their actual values, and
// the page, the count and the aggregations run at once. total_hits is
// exact up to ExactTotalLimit (default 1,000) and estimated beyond from a
// fixed block sample of about 8,000 rows, as the reference allows
// ("approximate"). A text search ranks every match to find its page, and
// counts them in the same statement: its total_hits is always exact.
package postgres
