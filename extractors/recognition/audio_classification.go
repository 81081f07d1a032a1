package recognition

import (
	"context"
	"math"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

func init() {
	settings := append(provider.Settings("VENDOR_API", "vendor"), extractors.Setting{
		Name: "seconds", Env: "VENDOR_AUDIO_SECONDS", Kind: extractors.KindInt, Default: "30", Min: 1, Max: maxAudioSeconds,
		Doc: "seconds of sound sent for audio classification, from the middle of the item"})
	extractors.MustRegister(extractors.Info{
		Name:        "vendor_audio_classification",
		DisplayName: "Audio Classification",
		Family:      extractors.FamilyRecognition,
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"ffmpeg", "ffprobe"},
		Provider:    "vendor",
		Accept:      extractors.AcceptMIME([]string{"audio/", "video/"}),
		Settings:    settings,
		Fields: []extractors.Field{
			{Path: "labels.name", Type: extractors.TypeString, Doc: "class of sound the provider heard (speech, music, applause...)"},
			{Path: "labels.confidence", Type: extractors.TypeNumber, Doc: "0..1 (0: not given)"},
			{Path: "labels.start", Type: extractors.TypeNumber, Doc: "seconds from the start of the item"},
			{Path: "labels.end", Type: extractors.TypeNumber, Doc: "seconds from the start of the item"},
			{Path: "labels.time", Type: extractors.TypeNumber, Doc: "seconds from the start of the item"},
			{Path: "top", Type: extractors.TypeString, Doc: "the label with the most confidence summed"},
			{Path: "clip.start", Type: extractors.TypeNumber, Doc: "where the sample sent starts, seconds"},
			{Path: "clip.duration", Type: extractors.TypeNumber, Doc: "length of the sample sent, seconds"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			c, err := provider.FromEnv(env)
			if err != nil {
				return nil, err
			}
			secs, err := env.Int("seconds")
			if err != nil {
				return nil, err
			}
			return &audioClassification{client: c, run: env.Runner, seconds: secs}, nil
		},
	})
}

type audioClassification struct {
	client  *provider.Client
	run     *extractors.Runner
	seconds int
}

func (x *audioClassification) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	probe, err := av.Read(ctx, x.run, in)
	if err != nil {
		return nil, provider.WrapRun(ctx, "read the streams", err)
	}
	if probe.Audio() == nil {
		return nil, extractors.ErrUnsupported
	}
	wav, start, length, err := provider.AudioClip(ctx, x.run, in, probe, x.seconds)
	if err != nil {
		return nil, err
	}
	media := provider.Media{Type: "audio/wav", Start: &start, Duration: &length, Data: wav}
	answer, err := call(ctx, x.client, "audio_classification", map[string]any{"media": []provider.Media{media}})
	if err != nil {
		return nil, err
	}
	res := labelsResult(in, answer, start, probe.Duration())
	res.Data["clip"] = map[string]any{"start": math.Round(start*1000) / 1000, "duration": math.Round(length*1000) / 1000}
	if l := res.Data["labels"].([]any); len(l) > 0 {
		res.Data["top"] = top(l)
	}
	return res, nil
}
