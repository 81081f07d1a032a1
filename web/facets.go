package web

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// facetDef is one facet: how it asks the engine for counts, how its
// buckets read, and the condition one of its values sets. Fields are the
// catalogue's: base fields and the fields extractors declare.
type facetDef struct {
	Key, Title string
	// fields are the catalogue fields the facet reads: a facet is offered
	// only when the engine's catalogue has them all.
	fields []string
	// heavy facets read extracted data of every matching document and run
	// only for smaller result sets (heavyFacetLimit).
	heavy   bool
	agg     func(a *search.Aggregations)
	buckets func(st searchState, res *search.AggregationResults) []bucket
	// cond adds the condition of value (already checked by
	// checkFacetValue).
	cond  func(f *search.Filters, value string)
	label func(value string) string
}

type bucket struct {
	Value, Label string
	Count        int64
}

// facetView is a facet as the page lists it.
type facetView struct {
	Key, Title string
	Values     []facetValue
}

type facetValue struct {
	Label  string
	Count  int64
	Href   string
	Active bool
}

func termsFacet(key, title, field string, heavy bool, label func(string) string) facetDef {
	name := "f_" + key
	return facetDef{Key: key, Title: title, heavy: heavy, fields: []string{field},
		agg: func(a *search.Aggregations) {
			a.Terms = append(a.Terms, search.TermsAgg{Name: name, Field: field, Size: 10})
		},
		buckets: func(_ searchState, res *search.AggregationResults) []bucket {
			var out []bucket
			for _, b := range res.Terms[name].Buckets {
				out = append(out, bucket{b.Key, label(b.Key), b.Count})
			}
			return out
		},
		cond: func(f *search.Filters, v string) {
			f.Terms = append(f.Terms, search.Term{Field: field, Value: search.FlexString(v)})
		},
		label: label,
	}
}

func same(s string) string { return s }

var languageNames = display.English.Languages()

// languageName names a language code (ISO 639-1 or -2, or a BCP 47 tag:
// "tr", "tur", "pt-BR") in English; a code it does not know is shown as
// it is.
func languageName(code string) string {
	tag, err := language.Parse(code)
	if err != nil {
		return code
	}
	if tag.IsRoot() {
		return code
	}
	if name := languageNames.Name(tag); name != "" {
		return name
	}
	return code
}

// durationRanges are the duration facet's values, in seconds [from, to).
var durationRanges = []struct {
	Value, Label string
	From, To     int64 // To 0: open
}{
	{"lt1m", "Under 1 minute", 0, 60}, {"1to5m", "1 to 5 minutes", 60, 300}, {"5to20m", "5 to 20 minutes", 300, 1200},
	{"20to60m", "20 to 60 minutes", 1200, 3600}, {"gt1h", "Over an hour", 3600, 0},
}

// qcFlags are the quality-control facet's values: items where the
// extractor found at least one event.
var qcFlags = []struct{ Value, Label, Field string }{
	{"black", "Black frames", "black_scenes.count"},
	{"silence", "Silence", "vendor_silence.count"},
	{"bars", "Colour bars", "vendor_color_bars.count"},
}

const facesField = "vendor_faces.count"

// facetDefs lists the facets, the custom fields' last: the first few, and
// any that filters name (a filter by a later field reads as its name and
// can be removed from its facet).
func (u *UI) facetDefs(ctx context.Context, filters ...filterParam) ([]facetDef, error) {
	defs := []facetDef{
		termsFacet("type", "Type", search.FieldType, false, func(v string) string {
			if l := typeLabels[v]; l != "" {
				return l
			}
			return v
		}),
		termsFacet("mime", "MIME type", search.FieldMimeType, false, same),
		termsFacet("ext", "Extension", search.FieldExtension, false, same),
		termsFacet("location", "Location", search.FieldLocationName, false, same),
		termsFacet("container", "Container", search.FieldContainerName, false, same),
		yearFacet(), monthFacet(), durationFacet(),
		termsFacet("lang", "Language", "vendorlanguage.language", true, languageName),
		termsFacet("objects", "Objects", "objects.names", true, same),
		termsFacet("caplang", "Caption language", search.FieldTranscript+".languages", true, languageName),
		facesFacet(), qcFacet(),
		// People across the archive, by name (docs/people.md).
		termsFacet("person", "People", search.FieldPeople+".name", false, same),
	}
	// Facets over fields of extractors this build does not have are left
	// out (the engine would refuse them).
	defs = slices.DeleteFunc(defs, func(fd facetDef) bool {
		for _, f := range fd.fields {
			if _, ok := u.catalogue[f]; !ok {
				return true
			}
		}
		return false
	})
	var named []string
	for _, f := range filters {
		if id, ok := strings.CutPrefix(f.Key, search.FieldCustomFieldsPrefix+"."); ok {
			named = append(named, id)
		}
	}
	fields, err := u.customFields(ctx, named)
	if err != nil {
		return nil, err
	}
	for _, cf := range fields {
		if cf.DataType == models.FieldDate {
			continue // a date's every value is its own bucket
		}
		defs = append(defs, termsFacet(search.CustomFieldPath(cf.ID), cf.Name, search.CustomFieldPath(cf.ID), true, same))
	}
	return defs, nil
}

// The date facets count by day (exact at year and month bounds, in UTC)
// and add the days up.
const dayHistogram = "f_days"

func dayAgg(a *search.Aggregations) {
	for _, h := range a.Histograms {
		if h.Name == dayHistogram {
			return
		}
	}
	a.Histograms = append(a.Histograms, search.HistogramAgg{Name: dayHistogram, Field: search.FieldLastModified, Interval: 86400, MinCount: 1})
}

func dayCounts(res *search.AggregationResults, key func(time.Time) string) map[string]int64 {
	out := map[string]int64{}
	for _, b := range res.Histograms[dayHistogram].Buckets {
		out[key(time.Unix(b.Key, 0).UTC())] += b.Count
	}
	return out
}

func sortedBuckets(counts map[string]int64, label func(string) string, desc bool) []bucket {
	var out []bucket
	for k, n := range counts {
		out = append(out, bucket{k, label(k), n})
	}
	sort.Slice(out, func(i, j int) bool {
		if desc {
			return out[i].Value > out[j].Value
		}
		return out[i].Value < out[j].Value
	})
	return out
}

func yearFacet() facetDef {
	return facetDef{Key: "year", Title: "Year modified", heavy: true, agg: dayAgg, fields: []string{search.FieldLastModified},
		buckets: func(_ searchState, res *search.AggregationResults) []bucket {
			return sortedBuckets(dayCounts(res, func(t time.Time) string { return t.Format("2006") }), same, true)
		},
		cond: func(f *search.Filters, v string) {
			f.Ranges = append(f.Ranges, search.Range{Field: search.FieldLastModified,
				From: search.FlexString(v + "-01-01"), To: search.FlexString(v + "-12-31")})
		},
		label: same,
	}
}

func monthFacet() facetDef {
	label := func(v string) string {
		t, err := time.Parse("2006-01", v)
		if err != nil {
			return v
		}
		return t.Format("January 2006")
	}
	return facetDef{Key: "month", Title: "Month modified", heavy: true, agg: dayAgg, fields: []string{search.FieldLastModified},
		buckets: func(st searchState, res *search.AggregationResults) []bucket {
			// Months are offered once a year is chosen (twelve at most).
			year := ""
			for _, f := range st.Filters {
				if f.Key == "year" {
					year = f.Value
				}
			}
			if year == "" {
				return nil
			}
			counts := dayCounts(res, func(t time.Time) string { return t.Format("2006-01") })
			for k := range counts {
				if !strings.HasPrefix(k, year+"-") {
					delete(counts, k)
				}
			}
			return sortedBuckets(counts, label, false)
		},
		cond: func(f *search.Filters, v string) {
			t, _ := time.Parse("2006-01", v)
			last := t.AddDate(0, 1, -1)
			f.Ranges = append(f.Ranges, search.Range{Field: search.FieldLastModified,
				From: search.FlexString(t.Format("2006-01-02")), To: search.FlexString(last.Format("2006-01-02"))})
		},
		label: label,
	}
}

func durationFacet() facetDef {
	const name = "f_duration"
	label := func(v string) string {
		for _, r := range durationRanges {
			if r.Value == v {
				return r.Label
			}
		}
		return v
	}
	return facetDef{Key: "duration", Title: "Duration", heavy: true, fields: []string{durationField},
		agg: func(a *search.Aggregations) {
			a.Histograms = append(a.Histograms, search.HistogramAgg{Name: name, Field: durationField, Interval: 60, MinCount: 1})
		},
		buckets: func(_ searchState, res *search.AggregationResults) []bucket {
			counts := make([]int64, len(durationRanges))
			for _, b := range res.Histograms[name].Buckets {
				for i, r := range durationRanges {
					if b.Key >= r.From && (r.To == 0 || b.Key < r.To) {
						counts[i] += b.Count
					}
				}
			}
			var out []bucket
			for i, r := range durationRanges {
				if counts[i] > 0 {
					out = append(out, bucket{r.Value, r.Label, counts[i]})
				}
			}
			return out
		},
		cond: func(f *search.Filters, v string) {
			for _, r := range durationRanges {
				if r.Value == v {
					rg := search.Range{Field: durationField, From: search.FlexString(strconv.FormatInt(r.From, 10))}
					if r.To > 0 {
						rg.To = search.FlexString(strconv.FormatFloat(float64(r.To)-0.001, 'f', 3, 64))
					}
					f.Ranges = append(f.Ranges, rg)
				}
			}
		},
		label: label,
	}
}

// countHistogram counts documents whose field (an event count) is at
// least 1.
func countHistogram(name, field string) search.HistogramAgg {
	return search.HistogramAgg{Name: name, Field: field, Interval: 1, MinCount: 1}
}

func atLeastOne(res *search.AggregationResults, name string) int64 {
	var n int64
	for _, b := range res.Histograms[name].Buckets {
		if b.Key >= 1 {
			n += b.Count
		}
	}
	return n
}

func facesFacet() facetDef {
	const name = "f_faces"
	return facetDef{Key: "faces", Title: "Faces", heavy: true, fields: []string{facesField},
		agg: func(a *search.Aggregations) { a.Histograms = append(a.Histograms, countHistogram(name, facesField)) },
		buckets: func(_ searchState, res *search.AggregationResults) []bucket {
			if n := atLeastOne(res, name); n > 0 {
				return []bucket{{"yes", "Faces seen", n}}
			}
			return nil
		},
		cond: func(f *search.Filters, _ string) {
			f.Ranges = append(f.Ranges, search.Range{Field: facesField, From: "1"})
		},
		label: func(string) string { return "Faces seen" },
	}
}

func qcFacet() facetDef {
	label := func(v string) string {
		for _, q := range qcFlags {
			if q.Value == v {
				return q.Label
			}
		}
		return v
	}
	return facetDef{Key: "qc", Title: "Quality control", heavy: true, fields: qcFields(),
		agg: func(a *search.Aggregations) {
			for _, q := range qcFlags {
				a.Histograms = append(a.Histograms, countHistogram("f_qc_"+q.Value, q.Field))
			}
		},
		buckets: func(_ searchState, res *search.AggregationResults) []bucket {
			var out []bucket
			for _, q := range qcFlags {
				if n := atLeastOne(res, "f_qc_"+q.Value); n > 0 {
					out = append(out, bucket{q.Value, q.Label, n})
				}
			}
			return out
		},
		cond: func(f *search.Filters, v string) {
			for _, q := range qcFlags {
				if q.Value == v {
					f.Ranges = append(f.Ranges, search.Range{Field: q.Field, From: "1"})
				}
			}
		},
		label: label,
	}
}

func qcFields() []string {
	var out []string
	for _, q := range qcFlags {
		out = append(out, q.Field)
	}
	return out
}

// checkFacetValue refuses values a facet cannot have ("" when fine);
// other keys are catalogue fields, which the engine checks.
func checkFacetValue(key, value string) string {
	bad := func(what string) string {
		return fmt.Sprintf("The filter %s:%s is not valid (%s); it was left out.", key, clip(value), what)
	}
	switch key {
	case "year":
		if y, err := strconv.Atoi(value); err != nil || len(value) != 4 || y < 1 {
			return bad("a year is four digits")
		}
	case "month":
		if t, err := time.Parse("2006-01", value); err != nil || t.Year() < 1 {
			return bad("a month is written 2024-05")
		}
	case "duration":
		for _, r := range durationRanges {
			if r.Value == value {
				return ""
			}
		}
		return bad("not one of the duration ranges")
	case "faces":
		if value != "yes" {
			return bad("the only value is yes")
		}
	case "qc":
		for _, q := range qcFlags {
			if q.Value == value {
				return ""
			}
		}
		return bad("one of black, silence, bars")
	}
	return ""
}

// addCondition adds a filter's condition: a facet's, or a term on the
// named field.
func addCondition(f *search.Filters, p filterParam, facets []facetDef) error {
	for _, fd := range facets {
		if fd.Key == p.Key {
			fd.cond(f, p.Value)
			return nil
		}
	}
	f.Terms = append(f.Terms, search.Term{Field: p.Key, Value: search.FlexString(p.Value)})
	return nil
}

func filterLabel(p filterParam, facets []facetDef) string {
	for _, fd := range facets {
		if fd.Key == p.Key {
			return fd.Title + ": " + fd.label(p.Value)
		}
	}
	return p.Key + ": " + p.Value
}

// facetViews lists each facet with values, every value a link that adds
// its filter (or, when active, removes it).
func facetViews(st searchState, facets []facetDef, res *search.AggregationResults) []facetView {
	if res == nil {
		return nil
	}
	var out []facetView
	for _, fd := range facets {
		bs := fd.buckets(st, res)
		if len(bs) == 0 {
			continue
		}
		fv := facetView{Key: fd.Key, Title: fd.Title}
		for _, b := range bs {
			fp := filterParam{fd.Key, b.Value}
			active := false
			for _, x := range st.Filters {
				if x == fp {
					active = true
				}
			}
			href := st.link(func(s *searchState) {
				s.Page = 1
				if active {
					for i, x := range s.Filters {
						if x == fp {
							s.Filters = append(s.Filters[:i], s.Filters[i+1:]...)
							break
						}
					}
				} else {
					s.Filters = append(s.Filters, fp)
				}
			})
			fv.Values = append(fv.Values, facetValue{Label: b.Label, Count: b.Count, Href: href, Active: active})
		}
		out = append(out, fv)
	}
	return out
}
