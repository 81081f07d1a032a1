package ocr

import (
	"context"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// vendor_textless is a vendor-branded analysis of the reference run here,
// locally, without a provider: the stretches of a video without text in
// the picture, what a broadcaster looks for to make a textless version
// (texted_ranges.go).
func init() {
	extractors.MustRegister(extractors.Info{
		Name:        "vendor_textless",
		DisplayName: "Textless Segments",
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"tesseract", "ffmpeg", "ffprobe"},
		After:       analysisAfter,
		Accept:      acceptVideo(),
		Timeout:     time.Hour,
		Settings:    settings,
		Fields: frameFactFields(append(rangeFields("ranges"),
			extractors.Field{Path: "count", Type: extractors.TypeNumber, Doc: "textless ranges"},
			extractors.Field{Path: "total_duration", Type: extractors.TypeNumber, Doc: "seconds of video without text"},
			extractors.Field{Path: "share", Type: extractors.TypeNumber, Doc: "share of the analysed video without text, 0 to 1"},
		)...),
		New: newAnalysis(func(e *engine) extractors.Extractor { return textless{e} }),
	})
}

type textless struct{ e *engine }

var _ extractors.Extractor = textless{}

func (x textless) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	vr, err := x.e.videoText(ctx, in)
	if err != nil {
		return nil, err
	}
	_, _, rs := textedSpans(vr)
	return &extractors.Result{Data: spansSummary(vr, rs, nil)}, nil
}
