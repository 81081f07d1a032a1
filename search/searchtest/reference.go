package searchtest

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/internal/jsonleaf"
	"github.com/metaharvest/metaharvest/internal/wordmatch"
	"github.com/metaharvest/metaharvest/search"
)

// The reference evaluation: plain Go over the generated documents, written
// independently of the engines (it shares only the documented rules: the
// visibility rule, the media types, the hit-count paths).

// values returns the scalar values at a dotted path, through arrays.
func values(doc map[string]any, path string) []any {
	var out []any
	var walk func(v any, segs []string)
	walk = func(v any, segs []string) {
		switch x := v.(type) {
		case map[string]any:
			if len(segs) == 0 {
				return
			}
			walk(x[segs[0]], segs[1:])
		case []any:
			for _, e := range x {
				walk(e, segs)
			}
		case string:
			if len(segs) == 0 && x != "" {
				out = append(out, x)
			}
		case float64, bool:
			if len(segs) == 0 {
				out = append(out, x)
			}
		}
	}
	walk(map[string]any(doc), strings.Split(path, "."))
	return out
}

// hasUnder reports whether the document has a value at path or below it.
func hasUnder(doc map[string]any, path string) bool {
	var v any = map[string]any(doc)
	for _, s := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[s]; !ok {
			return false
		}
	}
	has := false
	jsonleaf.Walk(v, func(l jsonleaf.Leaf) {
		switch x := l.Value.(type) {
		case string:
			has = has || x != ""
		case float64, bool:
			has = true
		}
	})
	return has
}

func groupsOf(doc map[string]any, key string) []string {
	var out []string
	for _, g := range doc[key].([]any) {
		out = append(out, g.(string))
	}
	return out
}

func visible(doc map[string]any, vis search.Visibility) bool {
	if vis.All {
		return true
	}
	ok := func(groups []string) bool {
		if len(groups) == 0 {
			return true
		}
		for _, g := range groups {
			if contains(vis.GroupIDs, g) {
				return true
			}
		}
		return false
	}
	return ok(groupsOf(doc, search.FieldLocationGroups)) && ok(groupsOf(doc, search.FieldContainerGroups))
}

func termMatches(vals []any, v string) bool {
	for _, x := range vals {
		switch y := x.(type) {
		case string:
			if y == v {
				return true
			}
		case float64:
			if f, err := strconv.ParseFloat(v, 64); err == nil && f == y {
				return true
			}
		case bool:
			if strconv.FormatBool(y) == v {
				return true
			}
		}
	}
	return false
}

func numbers(vals []any) []float64 {
	var out []float64
	for _, x := range vals {
		if f, ok := x.(float64); ok {
			out = append(out, f)
		}
	}
	return out
}

// instants reads the date strings the corpus writes: RFC 3339, with a zone
// or without one (exiv2's created_local, taken as UTC).
func instants(vals []any) []time.Time {
	var out []time.Time
	for _, x := range vals {
		s, ok := x.(string)
		if !ok {
			continue
		}
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05"} {
			if t, err := time.Parse(layout, s); err == nil {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func inRange(f, lo, hi float64) bool { return f >= lo && f <= hi }

// tokens splits text into lower-case words.
// tokens are the words of s as a person looking for them counts them:
// whatever their case and accents (wordmatch's folding: "Çağ" is "cag").
func tokens(s string) []string {
	return wordmatch.NewFolder().Words(s)
}

var nonText = map[string]bool{"_id": true, "location_id": true, "store_container_id": true, "item_id": true}

// textFields returns the string leaves of a document by path.
func textFields(doc map[string]any) map[string][]string {
	out := map[string][]string{}
	jsonleaf.Walk(map[string]any(doc), func(l jsonleaf.Leaf) {
		if x, ok := l.Value.(string); ok && !nonText[l.Path] && !strings.HasPrefix(l.Path, "_") {
			out[l.Path] = append(out[l.Path], x)
		}
	})
	return out
}

// hasWord reports whether a text field (any, or one of fields) holds word.
func hasWord(doc map[string]any, word string, fields ...string) bool {
	word = wordmatch.NewFolder().Fold(word)
	for path, texts := range textFields(doc) {
		if len(fields) > 0 && !contains(fields, path) {
			continue
		}
		for _, t := range texts {
			if contains(tokens(t), word) {
				return true
			}
		}
	}
	return false
}

// selectDocs returns the ids of the visible documents passing keep.
func selectDocs(docs []search.Document, vis search.Visibility, keep func(search.Document) bool) []string {
	var out []string
	for _, d := range docs {
		if visible(d, vis) && keep(d) {
			out = append(out, d.ID())
		}
	}
	sort.Strings(out)
	return out
}

func approx(a, b float64) bool {
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
