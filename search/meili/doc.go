// Package meili is the Meilisearch search backend, used when MEILI_URL is
// set. It registers itself with search.Register as "meili".
//
// Three indexes (prefix + items, segments, fields) hold the documents, the
// segments and the shared field catalogue. Every catalogued leaf is
// filterable and sortable, string leaves searchable (name first); settings
// are updated, and awaited, when a new field appears. Upserts and deletes
// wait for their tasks, so that a document is searchable when Upsert returns.
//
// Requests are translated by pure functions (translate.go): filter
// expressions with every attribute and value double-quoted and escaped,
// visibility as "_location_groups IN [public, groups...]" (an unrestricted
// list holds a sentinel value), date ranges and sorts on _dates.<path>
// (epoch seconds written beside the document), "field:asc" sorts with the
// sort rule ranked first, matching strategy "all" (every word must match,
// as in Postgres), page/hitsPerPage pagination (exact totals up to
// MaxTotalHits), _rankingScore as the score, <em> highlights read from
// _formatted, facet distributions and stats for aggregations, and one
// counting query per hit-count type in the same multi-search.
//
// Differences from the Postgres backend, by Meilisearch design: terms match
// strings case-insensitively; avg, sum, cardinality and histograms are exact
// up to MaxValuesPerFacet distinct values among the matches; typo tolerance
// applies to words of five letters or more.
//
// Its live tests run the shared suite when MEILI_URL is set.
package meili
