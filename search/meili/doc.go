// Package meili is the Meilisearch search backend, used when MEILI_URL is
// set. It registers itself with search.Register as "meili".
//
// Three indexes (prefix + items, segments, fields) hold the documents, the
// segments and the shared field catalogue (with the key of the settings
// each index was given). The settings come from the declared catalogue
// when the engine starts and never change for a write (fields.go): declared
// fields filter and sort, long text filters only, the generic provider
// names and custom fields filter by pattern; other fields documents bring
// are stored and returned, and a request that filters, sorts or aggregates
// on one answers 400. Writes are sent without waiting for their tasks and
// become searchable when Meilisearch has run them; the engine waits only
// where a read needs them, and a task that fails has its items marked
// dirty again (write.go).
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
// Its tests run the shared suite against a real Meilisearch
// (internal/testmeili).
package meili
