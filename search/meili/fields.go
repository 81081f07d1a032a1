package meili

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/meilisearch/meilisearch-go"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/search"
)

// Index settings come from the declared field catalogue, once, when the
// engine starts: a harvest never changes them. (Changing the filterable
// attributes makes Meilisearch re-index every document; before, each field
// a harvest met for the first time did, and a harvest fed Meilisearch at a
// tenth of what it ingests.)
//
// What the catalogue declares, and what it makes of it:
//   - The base fields and every field an extractor declares
//     (search.BaseFields) filter and aggregate; those that are not long
//     text (extractors.TypeText: searched as words, "not a filter value,
//     sort key or bucket") also sort. Text fields stay filterable so that
//     exists and hit_counts see them.
//   - The generic names provider data is stored under (the roots of
//     search.HitCountPaths: tags, labels, logos ...) and custom fields
//     (fields.<id>) filter and aggregate whatever their leaves, by pattern.
//   - Digests (search.DigestFields) filter but are not searched as words:
//     a query that is one digest is a filter on its field (digestQuery).
//   - Other fields that documents bring (the json and xml extractors copy
//     arbitrary keys) are stored, returned and known to requests, but do
//     not filter, sort or aggregate with this backend: a request naming
//     one answers 400 (the Postgres backend takes them).

// indexSettings is what an index is given and what it allows.
type indexSettings struct {
	base       *meilisearch.Settings // everything but the filterable attributes
	filterable []any                 // granular rules (exact names, then patterns)
	exact      map[string]bool       // filterable paths
	roots      []string              // filterable with every leaf below them
	sortable   map[string]bool
	// facetSearch: Meilisearch's search among a facet's values, which
	// the platform does not use (aggregations read facet distributions).
	// Off, since keeping it up costs every batch of documents.
	facetSearch bool
}

// textFields are the declared long-text fields (extractors.TypeText).
func textFields() map[string]bool {
	out := map[string]bool{}
	for _, f := range extractors.Default.Fields() {
		if f.Type == extractors.TypeText {
			out[f.Path] = true
		}
	}
	return out
}

// declaredSettings returns the settings of a scope's index.
func declaredSettings(scope search.Scope, maxValuesPerFacet, maxTotalHits int64) *indexSettings {
	declared := search.BaseFields(scope)
	text := textFields()
	s := &indexSettings{exact: map[string]bool{}, sortable: map[string]bool{}}
	switch scope {
	case search.ScopeItems:
		roots := map[string]bool{search.FieldCustomFieldsPrefix: true}
		for _, t := range search.HitCountTypes() {
			for _, p := range search.HitCountPaths(t) {
				if _, leaf := declared[p]; !leaf {
					roots[p] = true
				}
			}
		}
		for r := range roots {
			s.roots = append(s.roots, r)
		}
	case search.ScopeSegments:
		// Segments are built by the platform (search.Segment): their
		// summary holds what the segment builders write.
		s.roots = []string{"summary"}
	}
	sort.Strings(s.roots)
	paths := make([]string, 0, len(declared))
	for p := range declared {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var sortable, searchable []string
	add := func(p string, k search.Kind, isText bool) {
		s.exact[p] = true
		if !isText {
			s.sortable[p] = true
			sortable = append(sortable, p)
		}
		if k&(search.KindDate|search.KindString) != 0 && !isText {
			// A string field may hold dates (created_local): their
			// instants sort; every instant filters (the _dates pattern).
			d := attr(p, search.KindDate)
			s.sortable[d] = true
			sortable = append(sortable, d)
		}
		if k&(search.KindString|search.KindDate) != 0 && search.Searchable(p) && !search.IsDigestField(p) {
			searchable = append(searchable, p)
		}
	}
	for _, p := range paths {
		add(p, declared[p], text[p])
	}
	// A parent makes every leaf below it searchable, once a document has
	// it; declared leaves are named, so that a request restricted to one
	// is valid before any document has it.
	searchable = append(searchable, s.roots...)
	sort.SliceStable(searchable, func(i, j int) bool {
		return searchable[i] == search.FieldName && searchable[j] != search.FieldName
	})
	exact := []string{search.FieldLocationGroups, search.FieldContainerGroups}
	for p := range s.exact {
		exact = append(exact, p)
	}
	s.exact[search.FieldLocationGroups], s.exact[search.FieldContainerGroups] = true, true
	slices.Sort(exact)
	features := meilisearch.AttributeFeatures{Filter: meilisearch.FilterFeatures{Equality: true, Comparison: true}}
	s.filterable = []any{meilisearch.AttributeRule{AttributePatterns: exact, Features: features}}
	{
		patterns := []string{datesField + ".*"}
		for _, r := range s.roots {
			patterns = append(patterns, r, r+".*")
		}
		s.filterable = append(s.filterable, meilisearch.AttributeRule{AttributePatterns: patterns, Features: features})
	}
	s.base = &meilisearch.Settings{
		SortableAttributes:   sortable,
		SearchableAttributes: searchable,
		RankingRules:         []string{"sort", "words", "typo", "proximity", "attribute", "exactness"},
		Faceting: &meilisearch.Faceting{
			MaxValuesPerFacet: maxValuesPerFacet,
			SortFacetValuesBy: map[string]meilisearch.SortFacetType{"*": meilisearch.SortFacetTypeCount},
		},
		Pagination: &meilisearch.Pagination{MaxTotalHits: maxTotalHits},
	}
	return s
}

func (s *indexSettings) underRoot(p string) bool {
	for _, r := range s.roots {
		if p == r || strings.HasPrefix(p, r+".") {
			return true
		}
	}
	return false
}

// filters reports whether a path (a leaf, or an instant under _dates)
// filters and aggregates.
func (s *indexSettings) filters(p string) bool {
	return s.exact[p] || s.underRoot(p) || strings.HasPrefix(p, datesField+".")
}

// searches reports whether a string path is searched as text.
func (s *indexSettings) searches(p string) bool {
	for _, a := range s.base.SearchableAttributes {
		if p == a || strings.HasPrefix(p, a+".") {
			return true
		}
	}
	return false
}

// sorts reports whether a path sorts.
func (s *indexSettings) sorts(p string) bool { return s.sortable[p] }

// key identifies the settings: it is stored beside the catalogue, so that
// a process starting with the same declarations changes nothing.
func (s *indexSettings) key() string {
	raw, _ := json.Marshal(struct {
		Base        *meilisearch.Settings
		Filterable  []any
		FacetSearch bool
	}{s.base, s.filterable, s.facetSearch})
	h := sha256.Sum256(raw)
	return hex.EncodeToString(h[:16])
}
