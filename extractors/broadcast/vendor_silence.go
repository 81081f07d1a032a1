package broadcast

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/av"
)

// vendor_silence is a vendor-branded analysis of the reference that runs
// here, locally: no provider is needed.
func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "vendor_silence",
		DisplayName:    "Silence",
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"ffmpeg", "ffprobe"},
		Accept:         extractors.AcceptMIME(soundTypes),
		Timeout:        timeout,
		Fields: []extractors.Field{
			{Path: "count", Type: extractors.TypeNumber, Doc: "silent stretches of at least 0.5 s"},
			{Path: "total_duration", Type: extractors.TypeNumber, Doc: "seconds of silence in all"},
			{Path: "analysed_duration", Type: extractors.TypeNumber, Doc: "seconds of audio decoded (at most the first 4 hours)"},
			{Path: "silences.start", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "silences.end", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "silences.duration", Type: extractors.TypeNumber, Doc: "seconds"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) { return silence{run: env.Runner}, nil },
	})
}

var _ extractors.Extractor = silence{}

// silence lists the stretches where every channel of the first audio
// stream stays under -60 dBFS for at least 0.5 s (silencedetect), in time
// order, the first 1000 of them.
type silence struct{ run *extractors.Runner }

func (x silence) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	probe, err := av.Read(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	if !hasAudio(probe) {
		return nil, fmt.Errorf("no audio stream: %w", extractors.ErrUnsupported)
	}
	p, err := analyse(ctx, x.run, in, probe, "vendor_silence")
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: summaryData("silences", p.silenceRanges(), p.end)}, nil
}
