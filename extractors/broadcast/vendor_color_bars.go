package broadcast

import "github.com/metaharvest/metaharvest/extractors"

// vendor_color_bars is a vendor-branded analysis of the reference that
// runs here, locally: no provider is needed.
func init() {
	register(extractors.Info{
		Name:        "vendor_color_bars",
		DisplayName: "Color Bars",
		Family:      extractors.FamilyQC,
		Version:     "1.0.0",
		Fields: append(summaryFields("bars", "stretches of colour bars", "colour bars", "video"),
			extractors.Field{Path: "bars.pattern", Type: extractors.TypeString, Doc: `"smpte" (bars over castellations and PLUGE) or "ebu" (full-height bars)`}),
	}, picture, colorBars)
}

// colorBars lists the stretches showing an SMPTE or EBU colour bar chart,
// found on four samples a second by the rule of bars.go, exact to 0.25 s.
func colorBars(p *pass) (map[string]any, error) {
	bars := barsRanges(p.samples, p.end)
	ranges := make([]Range, len(bars))
	for i, b := range bars {
		ranges[i] = b.Range
	}
	data := summaryData("bars", ranges, p.end)
	list := data["bars"].([]any)
	for i := range list {
		list[i].(map[string]any)["pattern"] = bars[i].Pattern
	}
	return data, nil
}
