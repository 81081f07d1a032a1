package ocr

import "github.com/metaharvest/metaharvest/extractors"

// slates finds the slates of a video by the text on them (slate_rule.go).
func init() {
	registerAnalysis(extractors.Info{
		Name:        "slates",
		DisplayName: "Slates",
		Family:      extractors.FamilyText,
		Version:     "1.0.0",
		Fields: slateListFields(
			extractors.Field{Path: "slates.keywords", Type: extractors.TypeString, Doc: "slate fields its text names (title, scene, take, date ...)"},
		),
	}, slatesRule)
}

// slatesRule lists the slates found by the rule of slate_rule.go.
func slatesRule(in *extractors.Input, vr *videoReading) map[string]any {
	found := slatesOf(in, vr)
	list := make([]any, 0, len(found))
	for _, s := range found[:min(len(found), maxListed)] {
		d := s.data()
		d["keywords"] = s.Keywords
		list = append(list, d)
	}
	return map[string]any{"count": len(found), "slates": list}
}
