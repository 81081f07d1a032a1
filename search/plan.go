package search

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// Limits of a request.
const (
	DefaultLimit     = 20
	MaxLimit         = 1000
	DefaultTermsSize = 10
	MaxTermsSize     = 1000
	MaxHistogramBins = 10000
	maxQueryLen      = 2048
	maxPage          = 1_000_000
	maxListLen       = 100
)

// Plan is a validated request in the terms both backends execute: paths are
// known, objects expanded to their leaves, kinds resolved, bounds parsed.
type Plan struct {
	// Query is the text query ("" when it has no word at all). Prefix says the
	// last word may also match as a prefix ("vid" finds "video").
	Query  string
	Prefix bool
	Limit  int
	Page   int
	Types  []string
	// SearchFields are the string leaves full-text search is restricted to;
	// nil means every searchable field.
	SearchFields []string
	Sort         []SortKey
	Only         []string

	Terms     []TermCond
	Ranges    []RangeCond
	Exists    []ExistsCond
	NotExists []ExistsCond

	Metrics    []MetricPlan
	TermsAggs  []TermsPlan
	Histograms []HistogramPlan
	// HitCounts is non-nil when hit counts were asked for.
	HitCounts []HitCountPlan
	// WantHitCounts is true when the request had hit_counts.
	WantHitCounts bool

	// Keyset: the results after the _id After, in _id order, without
	// relevance, highlights or total (Request.Cursor).
	Keyset bool
	After  string
}

// Offset is the index of the first result.
func (p *Plan) Offset() int { return p.Page * p.Limit }

// SortKey orders by a field. Kind is how values compare: KindNumber
// (numbers only), KindDate (instants of date strings), KindString
// (strings, byte order). Documents without a value come last either way.
type SortKey struct {
	Field string
	Asc   bool
	Kind  Kind
}

// TermCond: the field holds one of Values (see Filters.Terms).
type TermCond struct {
	Field  string
	Values []string
}

// RangeCond: the field holds a value within [From, To] (nil = open). Kind is
// KindNumber (compare numbers) or KindDate (compare instants, in seconds).
type RangeCond struct {
	Field    string
	Kind     Kind
	From, To *Bound
}

// ExistsCond: a field (or object) and the leaves that stand for it.
type ExistsCond struct {
	Field  string
	Leaves []string
}

// MetricPlan computes one metric. Kind is KindNumber or KindDate (seconds)
// for min/max/avg/sum, 0 for cardinality (distinct values of any kind).
type MetricPlan struct {
	Name, Field, Type string
	Kind              Kind
}

// TermsPlan is a terms aggregation.
type TermsPlan struct {
	Name, Field string
	Size        int
}

// HistogramPlan is a histogram over numbers (KindNumber) or instants in
// seconds (KindDate).
type HistogramPlan struct {
	Name, Field string
	Kind        Kind
	Interval    int64
	MinCount    int64
}

// HitCountPlan counts matches having a value at one of Leaves.
type HitCountPlan struct {
	Type   string
	Leaves []string
}

// problems gathers validation errors by request field.
type problems map[string]string

func (p problems) add(key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if old, ok := p[key]; ok {
		if !strings.Contains(old, msg) {
			p[key] = old + "; " + msg
		}
		return
	}
	p[key] = msg
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return apperr.Invalid(map[string]string(p))
}

// Validate checks a request against a catalogue the way every backend does:
// the error is an *apperr.Error (400) naming each offending field.
func Validate(req Request, cat *Catalogue) error {
	_, err := Compile(req, cat, time.Now())
	return err
}

// Compile validates a request and resolves it into a Plan. now anchors
// relative dates ("now-1h").
func Compile(req Request, cat *Catalogue, now time.Time) (*Plan, error) {
	pr := problems{}
	p := &Plan{}
	compileCommon(p, pr, req.Query, req.Limit, req.limitGiven, req.Page, req.SortFields, req.Only, cat)

	seenType := map[string]bool{}
	for _, t := range req.Types {
		if !slices.Contains(models.MediaTypes, t) {
			pr.add("types", "unknown type %q (one of %s)", t, strings.Join(models.MediaTypes, ", "))
			continue
		}
		if !seenType[t] {
			seenType[t] = true
			p.Types = append(p.Types, t)
		}
	}
	if len(req.Types) > len(models.MediaTypes)*2 {
		pr.add("types", "too many types")
	}

	if len(req.Fields) > maxListLen {
		pr.add("fields", "at most %d fields", maxListLen)
	} else if len(req.Fields) > 0 {
		seen := map[string]bool{}
		for _, f := range req.Fields {
			f = FieldAlias(f)
			if !cat.Known(f) {
				pr.add("fields", "unknown field %q", f)
				continue
			}
			n := 0
			for _, leaf := range cat.Leaves(f) {
				k, _ := cat.Kind(leaf)
				if k&(KindString|KindDate) == 0 || !Searchable(leaf) {
					continue
				}
				n++
				if !seen[leaf] {
					seen[leaf] = true
					p.SearchFields = append(p.SearchFields, leaf)
				}
			}
			if n == 0 {
				pr.add("fields", "field %q holds no searchable text", f)
			}
		}
		sort.Strings(p.SearchFields)
	}

	if req.Filters != nil {
		if req.Filters.Empty() {
			pr.add("filters", "must contain at least one filter (terms, multi_terms, ranges, exists or not_exists)")
		}
		compileFilters(p, pr, req.Filters, "filters", cat, now)
	}
	if req.Aggregations != nil {
		compileAggregations(p, pr, req.Aggregations, cat)
	}
	if req.HitCounts != nil {
		p.WantHitCounts = true
		types := make([]string, 0, len(req.HitCounts))
		for t := range req.HitCounts {
			if _, ok := hitCountPaths[t]; !ok {
				pr.add("hit_counts", "unknown data type %q (one of %s)", t, strings.Join(HitCountTypes(), ", "))
				continue
			}
			types = append(types, t)
		}
		if len(req.HitCounts) == 0 {
			types = HitCountTypes()
		}
		sort.Strings(types)
		p.HitCounts = []HitCountPlan{}
		for _, t := range types {
			var leaves []string
			for _, path := range hitCountPaths[t] {
				leaves = append(leaves, cat.Leaves(path)...)
			}
			p.HitCounts = append(p.HitCounts, HitCountPlan{Type: t, Leaves: leaves})
		}
	}
	if req.Cursor != nil {
		compileCursor(p, pr, req)
	}
	if err := pr.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// maxCursorLen bounds a cursor's id (ids are 32 characters).
const maxCursorLen = 512

// compileCursor reads a keyset walk (see Cursor): what it cannot honour is
// refused rather than ignored.
func compileCursor(p *Plan, pr problems, req Request) {
	const why = "cannot be used with a cursor, which walks the results in _id order"
	if len(req.SortFields) > 0 {
		pr.add("sort_fields", why)
	}
	if req.Page != 0 {
		pr.add("page", why)
	}
	if req.Aggregations != nil {
		pr.add("aggregations", why)
	}
	if req.HitCounts != nil {
		pr.add("hit_counts", why)
	}
	if len(req.Cursor.After) > maxCursorLen {
		pr.add("cursor", "must be at most %d characters", maxCursorLen)
	}
	p.Keyset, p.After = true, req.Cursor.After
	p.Sort, p.Page = nil, 0
}

// ValidateSegments checks a segment search request (see Validate).
func ValidateSegments(req SegmentRequest, cat *Catalogue) error {
	_, err := CompileSegments(req, cat, time.Now())
	return err
}

// CompileSegments validates a segment search and resolves it into a Plan.
// Filters are required.
func CompileSegments(req SegmentRequest, cat *Catalogue, now time.Time) (*Plan, error) {
	pr := problems{}
	p := &Plan{}
	compileCommon(p, pr, req.Query, req.Limit, req.limitGiven, req.Page, req.SortFields, req.Only, cat)
	f := req.Filters.filters()
	if f.Empty() {
		pr.add("filters", "required, with at least one filter (exact_terms, multi_terms, ranges or exists)")
	} else {
		compileFilters(p, pr, f, "filters", cat, now)
	}
	// ExactTerms travel as Terms: name the problem as the client wrote it.
	for k, v := range pr {
		if strings.HasPrefix(k, "filters.terms") {
			delete(pr, k)
			pr.add("filters.exact_terms"+strings.TrimPrefix(k, "filters.terms"), "%s", v)
		}
	}
	if err := pr.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// compileCommon reads the parts shared by item and segment searches.
// limitGiven says the body named limit: then 0 is refused like a negative
// limit (DECISIONS.md: 400 for a limit outside 1..max, above max clamped).
func compileCommon(p *Plan, pr problems, query string, limit int, limitGiven bool, page int, sorts []SortField, only []string, cat *Catalogue) {
	switch {
	case limit < 0, limit == 0 && limitGiven:
		pr.add("limit", "must be between 1 and %d (above %d is read as %d)", MaxLimit, MaxLimit, MaxLimit)
	case limit == 0:
		p.Limit = DefaultLimit
	case limit > MaxLimit:
		p.Limit = MaxLimit
	default:
		p.Limit = limit
	}
	switch {
	case page < 0:
		pr.add("page", "must not be negative")
	case page > maxPage:
		pr.add("page", "must be at most %d", maxPage)
	default:
		p.Page = page
	}
	if utf8.RuneCountInString(query) > maxQueryLen {
		pr.add("query", "must be at most %d characters", maxQueryLen)
	}
	p.Query, p.Prefix = normalizeQuery(query)

	if len(sorts) > 10 {
		pr.add("sort_fields", "at most 10 sort fields")
	}
	for i, s := range sorts {
		field := FieldAlias(s.Field)
		k, ok := cat.Kind(field)
		if !ok {
			if cat.IsParent(s.Field) {
				pr.add("sort_fields", "field %q is an object, not a value (sort_fields[%d])", s.Field, i)
			} else {
				pr.add("sort_fields", "unknown field %q (sort_fields[%d])", s.Field, i)
			}
			continue
		}
		p.Sort = append(p.Sort, SortKey{Field: field, Asc: s.Asc, Kind: sortKind(k)})
	}

	if len(only) > maxListLen {
		pr.add("only", "at most %d fields", maxListLen)
	}
	// Unknown names in only are left out (DECISIONS.md): a client asking for
	// a field this platform does not have gets the others.
	for _, f := range only {
		f = FieldAlias(f)
		if cat.Known(f) && !slices.Contains(p.Only, f) {
			p.Only = append(p.Only, f)
		}
	}
	if len(only) > 0 && len(p.Only) == 0 {
		p.Only = []string{FieldID} // none known: the results carry their ids only
	}
}

// sortKind picks how a field's values compare: numbers win, then instants,
// then strings.
func sortKind(k Kind) Kind {
	switch {
	case k&KindNumber != 0:
		return KindNumber
	case k&KindDate != 0 && k&KindString == 0:
		return KindDate
	default:
		return KindString
	}
}

// numericKind is how metrics and histograms read a field: numbers, else
// instants; 0 when the field holds neither.
func numericKind(k Kind) Kind {
	switch {
	case k&KindNumber != 0:
		return KindNumber
	case k&KindDate != 0:
		return KindDate
	}
	return 0
}

// normalizeQuery trims the query, empties it when it holds no letter or
// digit (such a query would match nothing in one engine and everything in
// another), and says whether its last word may match as a prefix: not when
// it ends a "phrase", or is excluded with "-".
func normalizeQuery(q string) (string, bool) {
	q = strings.TrimSpace(q)
	if !strings.ContainsFunc(q, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return "", false
	}
	if strings.Count(q, `"`)%2 == 1 {
		// An unterminated phrase: websearch syntax would read it as closed.
		return q, false
	}
	fields := strings.Fields(q)
	last := fields[len(fields)-1]
	r := []rune(last)
	prefix := !strings.HasPrefix(last, "-") && !strings.HasSuffix(last, `"`) &&
		(unicode.IsLetter(r[len(r)-1]) || unicode.IsDigit(r[len(r)-1])) && strings.ToLower(last) != "or"
	return q, prefix
}

func compileFilters(p *Plan, pr problems, f *Filters, key string, cat *Catalogue, now time.Time) {
	if n := len(f.Terms) + len(f.MultiTerms) + len(f.Ranges) + len(f.Exists) + len(f.NotExists); n > 200 {
		pr.add(key, "at most 200 conditions")
		return
	}
	// leafField resolves an alias and reports whether the field is a leaf
	// of the catalogue, naming the problem under k when it is not.
	leafField := func(k string, field *string) bool {
		name := *field
		*field = FieldAlias(name)
		if _, ok := cat.Kind(*field); ok {
			return true
		}
		if cat.IsParent(*field) {
			pr.add(k, "field %q is an object, not a value", name)
		} else {
			pr.add(k, "unknown field %q", name)
		}
		return false
	}
	for i, t := range f.Terms {
		k := fmt.Sprintf("%s.terms[%d]", key, i)
		if !leafField(k, &t.Field) {
			continue
		}
		if len(t.Value) > maxValueLength {
			pr.add(k, "value too long")
			continue
		}
		p.Terms = append(p.Terms, TermCond{Field: t.Field, Values: []string{string(t.Value)}})
	}
	for i, t := range f.MultiTerms {
		k := fmt.Sprintf("%s.multi_terms[%d]", key, i)
		if !leafField(k, &t.Field) {
			continue
		}
		var vals []string
		for _, v := range strings.Split(string(t.Value), ",") {
			if v = strings.TrimSpace(v); v != "" && !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			pr.add(k, "needs at least one value")
			continue
		}
		if len(vals) > 1000 {
			pr.add(k, "at most 1000 values")
			continue
		}
		p.Terms = append(p.Terms, TermCond{Field: t.Field, Values: vals})
	}
	for i, r := range f.Ranges {
		k := fmt.Sprintf("%s.ranges[%d]", key, i)
		if !leafField(k, &r.Field) {
			continue
		}
		rc := RangeCond{Field: r.Field}
		ok := true
		for _, end := range []struct {
			s     string
			upper bool
			dst   **Bound
			name  string
		}{{string(r.From), false, &rc.From, "from"}, {string(r.To), true, &rc.To, "to"}} {
			if strings.TrimSpace(end.s) == "" {
				continue
			}
			b, err := ParseBound(end.s, now, end.upper)
			if err != nil {
				pr.add(k, "%s: %v", end.name, err)
				ok = false
				continue
			}
			*end.dst = &b
		}
		if !ok {
			continue
		}
		switch {
		case rc.From == nil && rc.To == nil:
			pr.add(k, "needs from or to")
			continue
		case rc.From != nil && rc.To != nil && rc.From.Kind != rc.To.Kind:
			pr.add(k, "from and to must both be numbers or both be dates")
			continue
		case rc.From != nil:
			rc.Kind = rc.From.Kind
		default:
			rc.Kind = rc.To.Kind
		}
		fk, _ := cat.Kind(r.Field)
		if rc.Kind == KindNumber && fk&KindNumber == 0 {
			pr.add(k, "field %q holds no numbers (it holds %s)", r.Field, fk)
			continue
		}
		if rc.Kind == KindDate && fk&KindDate == 0 {
			pr.add(k, "field %q holds no dates (it holds %s)", r.Field, fk)
			continue
		}
		p.Ranges = append(p.Ranges, rc)
	}
	exists := func(list []string, listName string) []ExistsCond {
		var out []ExistsCond
		for i, name := range list {
			field := FieldAlias(name)
			if !cat.Known(field) {
				pr.add(fmt.Sprintf("%s.%s[%d]", key, listName, i), "unknown field %q", name)
				continue
			}
			out = append(out, ExistsCond{Field: field, Leaves: cat.Leaves(field)})
		}
		return out
	}
	p.Exists = exists(f.Exists, "exists")
	p.NotExists = exists(f.NotExists, "not_exists")
}

func compileAggregations(p *Plan, pr problems, a *Aggregations, cat *Catalogue) {
	if len(a.Metrics)+len(a.Terms)+len(a.Histograms) > 50 {
		pr.add("aggregations", "at most 50 aggregations")
		return
	}
	names := map[string]map[string]bool{"metrics": {}, "terms": {}, "histograms": {}}
	check := func(group string, i int, name, field string) (string, Kind, bool) {
		k := fmt.Sprintf("aggregations.%s[%d]", group, i)
		if name == "" {
			pr.add(k, "needs a name")
			return k, 0, false
		}
		if names[group][name] {
			pr.add(k, "duplicate name %q", name)
			return k, 0, false
		}
		names[group][name] = true
		fk, ok := cat.Kind(FieldAlias(field))
		if !ok {
			if cat.IsParent(FieldAlias(field)) {
				pr.add(k, "field %q is an object, not a value", field)
			} else {
				pr.add(k, "unknown field %q", field)
			}
			return k, 0, false
		}
		return k, fk, true
	}
	for i, m := range a.Metrics {
		k, fk, ok := check("metrics", i, m.Name, m.Field)
		if !ok {
			continue
		}
		switch m.Type {
		case MetricCardinality:
			p.Metrics = append(p.Metrics, MetricPlan{Name: m.Name, Field: FieldAlias(m.Field), Type: m.Type})
		case MetricMin, MetricMax, MetricAvg, MetricSum:
			nk := numericKind(fk)
			if nk == 0 {
				pr.add(k, "field %q holds no numbers or dates", m.Field)
				continue
			}
			p.Metrics = append(p.Metrics, MetricPlan{Name: m.Name, Field: FieldAlias(m.Field), Type: m.Type, Kind: nk})
		default:
			pr.add(k, "unknown metric type %q (min, max, avg, sum, cardinality)", m.Type)
		}
	}
	for i, t := range a.Terms {
		k, _, ok := check("terms", i, t.Name, t.Field)
		if !ok {
			continue
		}
		size := t.Size
		switch {
		case size == 0:
			size = DefaultTermsSize
		case size < 0 || size > MaxTermsSize:
			pr.add(k, "size must be between 1 and %d", MaxTermsSize)
			continue
		}
		p.TermsAggs = append(p.TermsAggs, TermsPlan{Name: t.Name, Field: FieldAlias(t.Field), Size: size})
	}
	for i, h := range a.Histograms {
		k, fk, ok := check("histograms", i, h.Name, h.Field)
		if !ok {
			continue
		}
		nk := numericKind(fk)
		switch {
		case nk == 0:
			pr.add(k, "field %q holds no numbers or dates", h.Field)
		case h.Interval <= 0:
			pr.add(k, "interval must be positive")
		case h.MinCount < 0:
			pr.add(k, "min_count must not be negative")
		default:
			p.Histograms = append(p.Histograms, HistogramPlan{Name: h.Name, Field: FieldAlias(h.Field), Kind: nk, Interval: h.Interval, MinCount: h.MinCount})
		}
	}
}

// HistogramKey is the bucket of v: the largest multiple of interval <= v.
func HistogramKey(v float64, interval int64) int64 {
	return int64(math.Floor(v/float64(interval))) * interval
}

// HistogramBuckets turns counts by bucket key into the response buckets:
// sorted, without buckets under minCount, and with the empty buckets between
// the first and the last when minCount is 0. Too many buckets is a 400.
func HistogramBuckets(name string, counts map[int64]int64, interval, minCount int64) ([]HistogramBucket, error) {
	out := []HistogramBucket{}
	if len(counts) == 0 {
		return out, nil
	}
	keys := make([]int64, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if minCount == 0 {
		lo, hi := keys[0], keys[len(keys)-1]
		if n := (hi-lo)/interval + 1; n > MaxHistogramBins || n < 0 {
			return nil, apperr.InvalidField("aggregations.histograms", fmt.Sprintf("histogram %q would have %d buckets (at most %d): raise interval or min_count", name, n, MaxHistogramBins))
		}
		for k := lo; k <= hi; k += interval {
			out = append(out, HistogramBucket{Key: k, Count: counts[k]})
		}
		return out, nil
	}
	for _, k := range keys {
		if counts[k] >= minCount {
			out = append(out, HistogramBucket{Key: k, Count: counts[k]})
		}
	}
	if len(out) > MaxHistogramBins {
		return nil, apperr.InvalidField("aggregations.histograms", fmt.Sprintf("histogram %q has %d buckets (at most %d): raise interval or min_count", name, len(out), MaxHistogramBins))
	}
	return out, nil
}

// TopBuckets sorts value counts (most frequent first, ties by key), keeps
// size of them and returns the sum of the others.
func TopBuckets(counts map[string]int64, size int) ([]Bucket, int64) {
	all := make([]Bucket, 0, len(counts))
	for k, n := range counts {
		all = append(all, Bucket{Key: k, Count: n})
	}
	SortBuckets(all)
	var others int64
	if len(all) > size {
		for _, b := range all[size:] {
			others += b.Count
		}
		all = all[:size]
	}
	return all, others
}

// SortBuckets orders by count descending, then key ascending.
func SortBuckets(b []Bucket) {
	sort.Slice(b, func(i, j int) bool {
		if b[i].Count != b[j].Count {
			return b[i].Count > b[j].Count
		}
		return b[i].Key < b[j].Key
	})
}
