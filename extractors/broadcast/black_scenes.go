package broadcast

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/av"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:        "black_scenes",
		DisplayName: "Black Scenes",
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"ffmpeg", "ffprobe"},
		Accept:      extractors.AcceptMIME(videoTypes),
		Timeout:     timeout,
		Fields: []extractors.Field{
			{Path: "count", Type: extractors.TypeNumber, Doc: "black stretches of at least 0.5 s"},
			{Path: "total_duration", Type: extractors.TypeNumber, Doc: "seconds of black in all"},
			{Path: "analysed_duration", Type: extractors.TypeNumber, Doc: "seconds of video decoded (at most the first 4 hours)"},
			{Path: "scenes.start", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "scenes.end", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "scenes.duration", Type: extractors.TypeNumber, Doc: "seconds"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) { return blackScenes{run: env.Runner}, nil },
	})
}

var _ extractors.Extractor = blackScenes{}

// blackScenes lists the stretches where the picture is black
// (blackdetect: 98% of the pixels under 10% of the luma range, for at
// least 0.5 s), in time order, the first 1000 of them.
type blackScenes struct{ run *extractors.Runner }

func (x blackScenes) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	probe, err := av.Read(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	if !hasVideo(probe) {
		return nil, fmt.Errorf("no video stream: %w", extractors.ErrUnsupported)
	}
	p, err := analyse(ctx, x.run, in, probe, "black_scenes")
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: summaryData("scenes", p.blackRanges(), p.end)}, nil
}
