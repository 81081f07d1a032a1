package recognition

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

func init() {
	settings := append(provider.Settings("VENDOR_API", "vendor"), extractors.Setting{
		Name: "frames", Env: "VENDOR_SPORTS_FRAMES", Kind: extractors.KindInt, Default: "4", Min: 1, Max: maxFrames,
		Doc: "frames sent for sports recognition, spread over the video"})
	extractors.MustRegister(extractors.Info{
		Name:        "vendorsports",
		DisplayName: "Sports",
		Family:      extractors.FamilyRecognition,
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"ffmpeg", "ffprobe"},
		Provider:    "vendor",
		After:       []string{"video_main_frames"},
		Accept:      extractors.AcceptMIME([]string{"video/"}),
		Settings:    settings,
		Fields: []extractors.Field{
			{Path: "labels.name", Type: extractors.TypeString, Doc: "sport the provider recognised in a frame"},
			{Path: "labels.confidence", Type: extractors.TypeNumber, Doc: "0..1 (0: not given)"},
			{Path: "labels.time", Type: extractors.TypeNumber, Doc: "time of the frame, seconds"},
			{Path: "labels.start", Type: extractors.TypeNumber, Doc: "seconds, when the provider gives a range"},
			{Path: "labels.end", Type: extractors.TypeNumber, Doc: "seconds, when the provider gives a range"},
			{Path: "sport", Type: extractors.TypeString, Doc: "the sport with the most confidence summed over the frames"},
			{Path: "frames", Type: extractors.TypeNumber, Doc: "frames sent"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			c, err := provider.FromEnv(env)
			if err != nil {
				return nil, err
			}
			n, err := env.Int("frames")
			if err != nil {
				return nil, err
			}
			return &sports{client: c, run: env.Runner, frames: n}, nil
		},
	})
}

type sports struct {
	client *provider.Client
	run    *extractors.Runner
	frames int
}

func (x *sports) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	probe, err := av.Read(ctx, x.run, in)
	if err != nil {
		return nil, provider.WrapRun(ctx, "read the streams", err)
	}
	if probe.Video() == nil {
		return nil, fmt.Errorf("%w: no video stream", extractors.ErrUnsupported)
	}
	fs, _, err := provider.Frames(ctx, x.run, in, probe, x.frames)
	if err != nil {
		return nil, err
	}
	media := make([]provider.Media, len(fs))
	for i, f := range fs {
		media[i] = f.Media()
	}
	answer, err := call(ctx, x.client, "sports", map[string]any{"media": media})
	if err != nil {
		return nil, err
	}
	res := labelsResult(in, answer, 0, probe.Duration())
	res.Data["frames"] = len(fs)
	if l := res.Data["labels"].([]any); len(l) > 0 {
		res.Data["sport"] = top(l)
	}
	return res, nil
}
