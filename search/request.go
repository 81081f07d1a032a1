package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// Request is the body of POST /api/data/search.
type Request struct {
	// Query is the text to search (web-search syntax: words, "phrases",
	// -excluded, or). Empty matches every document.
	Query string `json:"query"`
	// Limit is the page size, 1 to 1000; above 1000 is clamped to 1000. A
	// body without limit asks for the default 20; a limit of 0 or below in a
	// body is refused (limitGiven), while a Request built in Go with Limit 0
	// asks for the default.
	Limit int `json:"limit"`
	// Page is zero-based.
	Page int `json:"page"`
	// Types restricts to media types (video, audio, image, document, other).
	Types []string `json:"types,omitempty"`
	// Fields restricts full-text search to these fields (leaves or objects).
	Fields []string `json:"fields,omitempty"`
	// SortFields orders results; without them, by relevance (with a query) or
	// by _id.
	SortFields []SortField `json:"sort_fields,omitempty"`
	// Only restricts the fields returned in each result (_id is always kept).
	Only []string `json:"only,omitempty"`
	// Filters must hold at least one condition when present.
	Filters *Filters `json:"filters,omitempty"`
	// Aggregations are computed over every matching document.
	Aggregations *Aggregations `json:"aggregations,omitempty"`
	// HitCounts, when present, asks for hit counts of the listed data types
	// (keys; the numbers are ignored); an empty object asks for every type.
	HitCounts map[string]int `json:"hit_counts,omitempty"`
	// Cursor, set in Go only (never from a body), walks every result a
	// page at a time in _id order: see Cursor.
	Cursor *Cursor `json:"-"`

	// limitGiven: the JSON body named a limit.
	limitGiven bool
}

// UnmarshalJSON decodes a request body, noting whether it named a limit.
func (r *Request) UnmarshalJSON(b []byte) error {
	type fields Request // without this method
	aux := struct {
		*fields
		Limit *int `json:"limit"` // in place of the request's own
	}{fields: (*fields)(r)}
	var err error
	r.limitGiven, err = noteLimit(json.Unmarshal(b, &aux), aux.Limit, &r.Limit)
	return err
}

// noteLimit finishes the decoding of a request body (Request,
// SegmentRequest) that read its limit into named, beside the request's
// other fields, in the same pass over the body: it sets *limit and reports
// whether the body named a limit (a limit of 0 in a body is refused, while
// a request built in Go with Limit 0 asks for the default).
func noteLimit(err error, named *int, limit *int) (limitGiven bool, _ error) {
	if err != nil {
		return false, unembed(err)
	}
	if named == nil {
		return false, nil
	}
	*limit = *named
	return true, nil
}

// unembed names the field of a decoding error as a decoding straight into
// the type would ("page", not "fields.page"): the UnmarshalJSON methods
// here decode into a struct that embeds the type's fields as "fields",
// and encoding/json names embedded structs in its errors' paths.
func unembed(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		te.Field = strings.TrimPrefix(te.Field, "fields.")
		if te.Struct == "" {
			te.Struct = "fields"
		}
	}
	return err
}

// Cursor asks for the results whose _id comes after After, in _id order
// (keyset paging; After "" is the start): how an export reads every match,
// each page costing the same however far into the results it is, where
// page numbers make each page dearer than the last (and Meilisearch stops
// at its MaxTotalHits). The next page's After is the last result's _id.
// A cursor search has no relevance order nor highlights (every score is
// 1), no total (TotalHits is 0), and refuses sort fields, a page,
// aggregations and hit counts.
type Cursor struct {
	After string
}

// SortField is one sort key; Asc true is ascending.
type SortField struct {
	Field string `json:"field"`
	Asc   bool   `json:"asc"`
}

// Filters narrow the documents; all conditions must hold.
type Filters struct {
	// Terms: exact value of a field (for arrays, of one element). A numeric
	// value also matches the equal number, "true"/"false" the boolean.
	Terms []Term `json:"terms,omitempty"`
	// MultiTerms: the value is a comma-separated list; any of them matches.
	MultiTerms []Term `json:"multi_terms,omitempty"`
	// Ranges: inclusive bounds; see ParseBound for what a bound may be.
	Ranges []Range `json:"ranges,omitempty"`
	// Exists: fields that must have a value (non-empty; for an object, any
	// value below it). In JSON an entry is a name or {"field", "value"}
	// (see existsEntry).
	Exists []string `json:"exists,omitempty"`
	// NotExists: fields that must have no value.
	NotExists []string `json:"not_exists,omitempty"`
}

// UnmarshalJSON decodes filters, reading exists and not_exists entries in
// both forms.
func (f *Filters) UnmarshalJSON(b []byte) error {
	type fields Filters // without this method
	aux := struct {
		*fields
		Exists    []existsEntry `json:"exists"`
		NotExists []existsEntry `json:"not_exists"`
	}{fields: (*fields)(f)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return unembed(err)
	}
	f.Exists, f.NotExists = splitExists(aux.Exists, aux.NotExists)
	return nil
}

// existsEntry is one entry of exists or not_exists: a field name, or the
// object form clients of the original product send, {"field": F, "value":
// true}. Value true (or absent) means the entry as written; false the
// opposite condition: {"field": F, "value": false} in exists asks that F
// have no value, in not_exists that it have one.
type existsEntry struct {
	Field string
	Want  bool
}

// UnmarshalJSON accepts a string or {"field": string, "value": bool}.
func (e *existsEntry) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		e.Want = true
		return json.Unmarshal(b, &e.Field)
	case len(b) > 0 && b[0] == '{':
		var obj struct {
			Field string `json:"field"`
			Value *bool  `json:"value"`
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			return err
		}
		e.Field, e.Want = obj.Field, obj.Value == nil || *obj.Value
		return nil
	}
	return &json.UnmarshalTypeError{Value: "a field name or {\"field\", \"value\"}", Type: reflect.TypeFor[string]()}
}

// splitExists sorts entries into the fields that must have a value and
// those that must not, in the order given.
func splitExists(exists, notExists []existsEntry) (have, haveNot []string) {
	for _, e := range exists {
		if e.Want {
			have = append(have, e.Field)
		} else {
			haveNot = append(haveNot, e.Field)
		}
	}
	for _, e := range notExists {
		if e.Want {
			haveNot = append(haveNot, e.Field)
		} else {
			have = append(have, e.Field)
		}
	}
	return have, haveNot
}

// Empty reports whether no condition is set.
func (f *Filters) Empty() bool {
	return f == nil || len(f.Terms)+len(f.MultiTerms)+len(f.Ranges)+len(f.Exists)+len(f.NotExists) == 0
}

// Term is a field and a value.
type Term struct {
	Field string     `json:"field"`
	Value FlexString `json:"value"`
}

// Range is a field with bounds; an empty bound is open.
type Range struct {
	Field string     `json:"field"`
	From  FlexString `json:"from"`
	To    FlexString `json:"to"`
}

// FlexString is a string that also accepts a JSON number or boolean
// ({"value": 100} means "100"), since clients send either.
type FlexString string

// UnmarshalJSON accepts a string, number, boolean or null.
func (f *FlexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
		return errors.New("empty value")
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = FlexString(s)
	case bytes.Equal(b, []byte("null")):
		*f = ""
	case bytes.Equal(b, []byte("true")), bytes.Equal(b, []byte("false")):
		*f = FlexString(b)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return errors.New("value must be a string, number or boolean")
		}
		*f = FlexString(n)
	}
	return nil
}

// Aggregations are computed after query and filters.
type Aggregations struct {
	Metrics    []MetricAgg    `json:"metrics,omitempty"`
	Terms      []TermsAgg     `json:"terms,omitempty"`
	Histograms []HistogramAgg `json:"histograms,omitempty"`
}

// Metric types.
const (
	MetricMin         = "min"
	MetricMax         = "max"
	MetricAvg         = "avg"
	MetricSum         = "sum"
	MetricCardinality = "cardinality"
)

// MetricAgg computes one number over a field's values. For date fields the
// number is seconds since the epoch.
type MetricAgg struct {
	Name  string `json:"name"`
	Field string `json:"field"`
	Type  string `json:"type"`
}

// TermsAgg counts the most frequent values of a field (Size, default 10).
type TermsAgg struct {
	Name  string `json:"name"`
	Field string `json:"field"`
	Size  int    `json:"size"`
}

// HistogramAgg counts values in buckets [key, key+interval). MinCount 0 also
// returns the empty buckets between the first and the last.
type HistogramAgg struct {
	Name     string `json:"name"`
	Field    string `json:"field"`
	Interval int64  `json:"interval"`
	MinCount int64  `json:"min_count"`
}

// Response is the answer of a search.
type Response struct {
	Query     string   `json:"query"`
	Limit     int      `json:"limit"`
	Page      int      `json:"page"`
	TotalHits int64    `json:"total_hits"`
	Results   []Result `json:"results"`
	// Filters echoes the request's filters.
	Filters      *Filters            `json:"filters,omitempty"`
	Aggregations *AggregationResults `json:"aggregations,omitempty"`
	// HitCounts is present when requested; types with no hit are left out.
	HitCounts map[string]int64 `json:"hit_counts,omitempty"`
}

// Result is one hit.
type Result struct {
	// Result is the document (restricted to Only), without internals.
	Result map[string]any `json:"result"`
	// Highlight lists the fields where the query matched, with fragments
	// where matches are wrapped in <em>...</em>. Fragments are document text
	// as stored: clients must escape it before rendering it as HTML.
	Highlight []Highlight `json:"highlight"`
	// Score is the relevance in 0..1 (1 without a query).
	Score float64 `json:"score"`
}

// Highlight is the matched fragments of one field.
type Highlight struct {
	Field     string   `json:"field"`
	Fragments []string `json:"fragments"`
}

// HighlightPre and HighlightPost wrap matches in highlight fragments.
const (
	HighlightPre  = "<em>"
	HighlightPost = "</em>"
)

// AggregationResults are keyed by the aggregation names of the request.
type AggregationResults struct {
	// Metrics: null when no value was found (min, max, avg).
	Metrics    map[string]*float64        `json:"metrics,omitempty"`
	Terms      map[string]TermsResult     `json:"terms,omitempty"`
	Histograms map[string]HistogramResult `json:"histograms,omitempty"`
}

// TermsResult is the buckets of a terms aggregation, most frequent first (ties
// by key), and the count of values outside them.
type TermsResult struct {
	Buckets     []Bucket `json:"buckets"`
	OthersCount int64    `json:"othersCount"`
}

// Bucket is a value and how many documents hold it.
type Bucket struct {
	Key   string `json:"key"`
	Count int64  `json:"count"`
}

// HistogramResult is the buckets of a histogram, by key.
type HistogramResult struct {
	Buckets []HistogramBucket `json:"buckets"`
}

// HistogramBucket counts values v with Key <= v < Key+interval.
type HistogramBucket struct {
	Key   int64 `json:"key"`
	Count int64 `json:"count"`
}
