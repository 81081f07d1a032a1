package ocr

import (
	"context"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// vendor_texted is a vendor-branded analysis of the reference run here,
// locally, without a provider: the stretches of a video with text burnt
// into the picture (texted_ranges.go).
func init() {
	extractors.MustRegister(extractors.Info{
		Name:        "vendor_texted",
		DisplayName: "Texted Segments",
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"tesseract", "ffmpeg", "ffprobe"},
		After:       analysisAfter,
		Accept:      acceptVideo(),
		Timeout:     time.Hour,
		Settings:    settings,
		Fields: frameFactFields(append(rangeFields("ranges"),
			extractors.Field{Path: "count", Type: extractors.TypeNumber, Doc: "texted ranges"},
			extractors.Field{Path: "total_duration", Type: extractors.TypeNumber, Doc: "seconds of video with text"},
			extractors.Field{Path: "share", Type: extractors.TypeNumber, Doc: "share of the analysed video with text, 0 to 1"},
			extractors.Field{Path: "ranges.text", Type: extractors.TypeText, Doc: "text shown in the range (its frames' distinct texts, at most 512 bytes)"},
		)...),
		New: newAnalysis(func(e *engine) extractors.Extractor { return texted{e} }),
	})
}

type texted struct{ e *engine }

var _ extractors.Extractor = texted{}

func (x texted) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	vr, err := x.e.videoText(ctx, in)
	if err != nil {
		return nil, err
	}
	rs, texts, _ := textedSpans(vr)
	return &extractors.Result{Data: spansSummary(vr, rs, texts)}, nil
}
