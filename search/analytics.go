package search

// Analytics is the answer of GET /api/v3/search/analytics over the documents
// the caller may see.
type Analytics struct {
	// ExplicitContent counts documents with an adult-content verdict
	// (ExplicitContentField) as "explicit" or "safe".
	ExplicitContent []Bucket `json:"explicit_content"`
	// FilesByCategory counts by media type (video, audio, image, document, other).
	FilesByCategory []Bucket `json:"files_by_category"`
	// FilesByExtension counts by file extension.
	FilesByExtension []Bucket `json:"files_by_extension"`
	// FilesByLocation counts by location name.
	FilesByLocation []Bucket `json:"files_by_location"`
	// FilesByType counts by MIME type.
	FilesByType []Bucket `json:"files_by_type"`
}

// ExplicitContentField is the boolean verdict of the adult-content analysis.
const ExplicitContentField = "nsfw.nsfw"

// AnalyticsBuckets is how many buckets each analytics list holds at most.
const AnalyticsBuckets = 100

var analyticsAggs = []struct{ name, field string }{
	{"explicit_content", ExplicitContentField},
	{"files_by_category", FieldType},
	{"files_by_extension", FieldExtension},
	{"files_by_location", FieldLocationName},
	{"files_by_type", FieldMimeType},
}

// AnalyticsPlan is the plan both backends run for Analytics: no results, one
// terms aggregation per list (for the fields the catalogue knows).
func AnalyticsPlan(cat *Catalogue) *Plan {
	p := &Plan{Limit: 0}
	for _, a := range analyticsAggs {
		if _, ok := cat.Kind(a.field); ok {
			p.TermsAggs = append(p.TermsAggs, TermsPlan{Name: a.name, Field: a.field, Size: AnalyticsBuckets})
		}
	}
	return p
}

// AnalyticsFromResponse reads the answer of AnalyticsPlan.
func AnalyticsFromResponse(r *Response) *Analytics {
	a := &Analytics{}
	get := func(name string) []Bucket {
		out := []Bucket{}
		if r.Aggregations != nil {
			out = append(out, r.Aggregations.Terms[name].Buckets...)
		}
		return out
	}
	for _, b := range get("explicit_content") {
		switch b.Key {
		case "true":
			a.ExplicitContent = append(a.ExplicitContent, Bucket{Key: "explicit", Count: b.Count})
		case "false":
			a.ExplicitContent = append(a.ExplicitContent, Bucket{Key: "safe", Count: b.Count})
		}
	}
	if a.ExplicitContent == nil {
		a.ExplicitContent = []Bucket{}
	}
	a.FilesByCategory = get("files_by_category")
	a.FilesByExtension = get("files_by_extension")
	a.FilesByLocation = get("files_by_location")
	a.FilesByType = get("files_by_type")
	return a
}
