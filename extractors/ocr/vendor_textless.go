package ocr

import "github.com/metaharvest/metaharvest/extractors"

// vendor_textless is a vendor-branded analysis of the reference run here,
// locally, without a provider: the stretches of a video without text in
// the picture, what a broadcaster looks for to make a textless version
// (texted_ranges.go).
func init() {
	registerAnalysis(extractors.Info{
		Name:        "vendor_textless",
		DisplayName: "Textless Segments",
		Family:      extractors.FamilyText,
		Version:     "1.0.0",
		Fields: append(rangeFields("ranges"),
			extractors.Field{Path: "count", Type: extractors.TypeNumber, Doc: "textless ranges"},
			extractors.Field{Path: "total_duration", Type: extractors.TypeNumber, Doc: "seconds of video without text"},
			extractors.Field{Path: "share", Type: extractors.TypeNumber, Doc: "share of the analysed video without text, 0 to 1"},
		),
	}, textlessRule)
}

// textlessRule lists the ranges without text.
func textlessRule(_ *extractors.Input, vr *videoReading) map[string]any {
	_, _, rs := textedSpans(vr)
	return spansSummary(vr, rs, nil)
}
