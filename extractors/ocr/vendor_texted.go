package ocr

import "github.com/metaharvest/metaharvest/extractors"

// vendor_texted is a vendor-branded analysis of the reference run here,
// locally, without a provider: the stretches of a video with text burnt
// into the picture (texted_ranges.go).
func init() {
	registerAnalysis(extractors.Info{
		Name:        "vendor_texted",
		DisplayName: "Texted Segments",
		Family:      extractors.FamilyText,
		Version:     "1.0.0",
		Fields: append(rangeFields("ranges"),
			extractors.Field{Path: "count", Type: extractors.TypeNumber, Doc: "texted ranges"},
			extractors.Field{Path: "total_duration", Type: extractors.TypeNumber, Doc: "seconds of video with text"},
			extractors.Field{Path: "share", Type: extractors.TypeNumber, Doc: "share of the analysed video with text, 0 to 1"},
			extractors.Field{Path: "ranges.text", Type: extractors.TypeText, Doc: "text shown in the range (its frames' distinct texts, at most 512 bytes)"},
		),
	}, textedRule)
}

// textedRule lists the texted ranges with their text.
func textedRule(_ *extractors.Input, vr *videoReading) map[string]any {
	rs, texts, _ := textedSpans(vr)
	return spansSummary(vr, rs, texts)
}
