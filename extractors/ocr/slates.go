package ocr

import (
	"context"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// slates finds the slates of a video by the text on them (slate_rule.go).
func init() {
	extractors.MustRegister(extractors.Info{
		Name:        "slates",
		DisplayName: "Slates",
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"tesseract", "ffmpeg", "ffprobe"},
		After:       analysisAfter,
		Accept:      acceptVideo(),
		Timeout:     time.Hour,
		Settings:    settings,
		Fields: frameFactFields(append(rangeFields("slates"),
			extractors.Field{Path: "count", Type: extractors.TypeNumber, Doc: "slates found"},
			extractors.Field{Path: "slates.position", Type: extractors.TypeString, Doc: "head (first minute) or tail (last minute)"},
			extractors.Field{Path: "slates.text", Type: extractors.TypeText, Doc: "text of the slate"},
			extractors.Field{Path: "slates.keywords", Type: extractors.TypeString, Doc: "slate fields its text names (title, scene, take, date ...)"},
		)...),
		New: newAnalysis(func(e *engine) extractors.Extractor { return slates{e} }),
	})
}

type slates struct{ e *engine }

var _ extractors.Extractor = slates{}

func (x slates) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	vr, err := x.e.videoText(ctx, in)
	if err != nil {
		return nil, err
	}
	found := findSlates(vr, stillSlates(in.Prior["vendor_start_end"]))
	list := make([]any, 0, len(found))
	for _, s := range found[:min(len(found), maxListed)] {
		d := spanData(s.span)
		d["position"], d["text"] = s.Position, cutUTF8(s.Text, maxFrameText)
		d["keywords"] = s.Keywords
		list = append(list, d)
	}
	return &extractors.Result{Data: frameFacts(vr, map[string]any{"count": len(found), "slates": list})}, nil
}
