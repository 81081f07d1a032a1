package search

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// Segment is one analysed moment of a video (the reference's "the service"
// resource): GET /api/data/segments/{id} returns it as JSON.
type Segment struct {
	ID      string         `json:"_id"`
	ItemID  string         `json:"item_id"`
	Time    float64        `json:"time"` // seconds from the start of the video
	Summary SegmentSummary `json:"summary"`
	// Thumbnail is the frame's image (an artifact, served at its URL by
	// GET /api/data/artifacts/{path}); absent when no extractor kept one.
	Thumbnail *Thumbnail `json:"thumbnail,omitempty"`

	// LocationGroups and ContainerGroups are the item's visibility lists
	// (Document.Groups of the item). Engines keep them in step with the
	// item's document on each Upsert of that document.
	LocationGroups  []string `json:"-"`
	ContainerGroups []string `json:"-"`
}

// The parts of a segment's summary are the extractors' types: extractors
// report them, engines index and return them.
type (
	SegmentSummary     = extractors.SegmentSummary
	SegmentTag         = extractors.SegmentTag
	SegmentPerson      = extractors.SegmentPerson
	Rectangle          = extractors.Rectangle
	SegmentDescription = extractors.SegmentDescription
	SegmentLogo        = extractors.SegmentLogo
	SegmentText        = extractors.SegmentText
	SegmentNSFW        = extractors.SegmentNSFW
	SegmentTranscript  = extractors.SegmentTranscript
)

// Thumbnail is a segment's image as an extractor reported it (path below
// the artifact root, size, type) with the address the api serves it at,
// as items' artifacts carry theirs, so that clients need not build it.
type Thumbnail struct {
	extractors.Thumbnail
	URL string `json:"url,omitempty"`
}

// ArtifactURL is where the api serves the artifact at path (relative to the
// artifact root): GET /api/data/artifacts/{path}, each segment escaped so
// that a name with "?" or "#" still reaches the file.
func ArtifactURL(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/api/data/artifacts/" + strings.Join(segs, "/")
}

// withURL returns the segment with its thumbnail's URL set (a copy: the
// thumbnail may be shared).
func (s Segment) withURL() Segment {
	if s.Thumbnail != nil && s.Thumbnail.Path != "" && s.Thumbnail.URL == "" {
		th := *s.Thumbnail
		th.URL = ArtifactURL(th.Path)
		s.Thumbnail = &th
	}
	return s
}

// Document returns the segment as an indexable document (with visibility
// and the thumbnail's URL, which search results then carry).
func (s Segment) Document() (Document, error) {
	b, err := json.Marshal(s.withURL())
	if err != nil {
		return nil, fmt.Errorf("encode segment %s: %w", s.ID, err)
	}
	var d Document
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("encode segment %s: %w", s.ID, err)
	}
	d[FieldLocationGroups] = nonNil(s.LocationGroups)
	d[FieldContainerGroups] = nonNil(s.ContainerGroups)
	return d, nil
}

// DecodeSegment reads a stored segment document (without visibility).
func DecodeSegment(b []byte) (*Segment, error) {
	var s Segment
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode segment: %w", err)
	}
	s = s.withURL() // a document indexed before URLs were
	return &s, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SegmentRequest is the body of POST /api/data/segments/search.
type SegmentRequest struct {
	Query string `json:"query"`
	// Limit: 1 to 1000, above 1000 is 1000; absent is 20 (see Request.Limit).
	Limit      int             `json:"limit"`
	Page       int             `json:"page"`
	Only       []string        `json:"only,omitempty"`
	SortFields []SortField     `json:"sort_fields,omitempty"`
	Filters    *SegmentFilters `json:"filters"` // required, at least one condition

	limitGiven bool
}

// UnmarshalJSON decodes a request body, noting whether it named a limit.
func (r *SegmentRequest) UnmarshalJSON(b []byte) error {
	type fields SegmentRequest // without this method
	aux := struct {
		*fields
		Limit *int `json:"limit"` // in place of the request's own
	}{fields: (*fields)(r)}
	var err error
	r.limitGiven, err = noteLimit(json.Unmarshal(b, &aux), aux.Limit, &r.Limit)
	return err
}

// SegmentFilters narrow segments; ExactTerms are Filters.Terms.
type SegmentFilters struct {
	ExactTerms []Term   `json:"exact_terms"`
	MultiTerms []Term   `json:"multi_terms"`
	Ranges     []Range  `json:"ranges"`
	Exists     []string `json:"exists"`
	NotExists  []string `json:"not_exists,omitempty"`
}

// UnmarshalJSON decodes segment filters, reading exists and not_exists
// entries in both forms (see existsEntry).
func (f *SegmentFilters) UnmarshalJSON(b []byte) error {
	type fields SegmentFilters // without this method
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

func (f *SegmentFilters) filters() *Filters {
	if f == nil {
		return nil
	}
	return &Filters{Terms: f.ExactTerms, MultiTerms: f.MultiTerms, Ranges: f.Ranges, Exists: f.Exists, NotExists: f.NotExists}
}

// SegmentResponse echoes the request the way the reference shows it.
type SegmentResponse struct {
	Query       string            `json:"query"`
	Limit       int               `json:"limit"`
	Page        int               `json:"page"`
	Types       []string          `json:"types"`
	Fields      []string          `json:"fields"`
	Only        []string          `json:"only"`
	Filters     SegmentFilters    `json:"filters"`
	SortFields  []SegmentSortEcho `json:"sort_fields"`
	DisableAggr bool              `json:"disable_aggr"`
	TotalHits   int64             `json:"total_hits"`
	Results     []SegmentResult   `json:"results"`
}

// SegmentSortEcho is a sort key as the segment response spells it.
type SegmentSortEcho struct {
	Field     string `json:"field"`
	Ascending bool   `json:"ascending"`
}

// SegmentResult is one segment hit: the segment (restricted to Only) and its
// relevance in 0..1.
type SegmentResult struct {
	Result map[string]any `json:"result"`
	Score  float64        `json:"score"`
}

// NewSegmentResponse builds the echo part of a segment response from the
// request and its plan.
func NewSegmentResponse(req SegmentRequest, plan *Plan) *SegmentResponse {
	r := &SegmentResponse{
		Query: req.Query, Limit: plan.Limit, Page: plan.Page,
		Types: []string{"segments"}, Fields: []string{}, Only: nonNil(req.Only),
		DisableAggr: true, Results: []SegmentResult{}, SortFields: []SegmentSortEcho{},
	}
	if req.Filters != nil {
		r.Filters = *req.Filters
	}
	if r.Filters.ExactTerms == nil {
		r.Filters.ExactTerms = []Term{}
	}
	if r.Filters.MultiTerms == nil {
		r.Filters.MultiTerms = []Term{}
	}
	if r.Filters.Ranges == nil {
		r.Filters.Ranges = []Range{}
	}
	if r.Filters.Exists == nil {
		r.Filters.Exists = []string{}
	}
	for _, s := range req.SortFields {
		r.SortFields = append(r.SortFields, SegmentSortEcho{Field: s.Field, Ascending: s.Asc})
	}
	return r
}
