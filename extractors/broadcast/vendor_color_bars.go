package broadcast

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/av"
)

// vendor_color_bars is a vendor-branded analysis of the reference that
// runs here, locally: no provider is needed.
func init() {
	extractors.MustRegister(extractors.Info{
		Name:        "vendor_color_bars",
		DisplayName: "Color Bars",
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"ffmpeg", "ffprobe"},
		Accept:      extractors.AcceptMIME(videoTypes),
		Timeout:     timeout,
		Fields: []extractors.Field{
			{Path: "count", Type: extractors.TypeNumber, Doc: "stretches of colour bars of at least 0.5 s"},
			{Path: "total_duration", Type: extractors.TypeNumber, Doc: "seconds of colour bars in all"},
			{Path: "analysed_duration", Type: extractors.TypeNumber, Doc: "seconds of video decoded (at most the first 4 hours)"},
			{Path: "bars.start", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "bars.end", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "bars.duration", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "bars.pattern", Type: extractors.TypeString, Doc: `"smpte" (bars over castellations and PLUGE) or "ebu" (full-height bars)`},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) { return colorBars{run: env.Runner}, nil },
	})
}

var _ extractors.Extractor = colorBars{}

// colorBars lists the stretches showing an SMPTE or EBU colour bar chart,
// found on four samples a second by the rule of bars.go, exact to 0.25 s.
type colorBars struct{ run *extractors.Runner }

func (x colorBars) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	probe, err := av.Read(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	if !hasVideo(probe) {
		return nil, fmt.Errorf("no video stream: %w", extractors.ErrUnsupported)
	}
	p, err := analyse(ctx, x.run, in, probe, "vendor_color_bars")
	if err != nil {
		return nil, err
	}
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
	return &extractors.Result{Data: data}, nil
}
