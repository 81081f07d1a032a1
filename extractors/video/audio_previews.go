package video

import (
	"context"
	"slices"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "audio_previews",
		DisplayName:    "Audio Previews",
		Family:         extractors.FamilyVideo,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"ffmpeg", "ffprobe"},
		// Video containers too: an audio-only MP4, WebM or Ogg is often
		// typed video/; files with a moving picture are left to
		// video_previews.
		Accept:  acceptMedia([]string{"audio/", "video/", "application/ogg"}, append(slices.Clone(audioExts), videoExts...)),
		Timeout: time.Hour,
		Fields:  previewFields,
		Settings: []extractors.Setting{
			{Name: "max_duration", Env: "AUDIO_PREVIEWS_MAX_DURATION", Kind: extractors.KindNumber, Default: "14400", Min: 1, Max: 7 * 24 * 3600,
				Doc: "seconds of a recording previewed at most (its beginning)"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			md, err := env.Number("max_duration")
			if err != nil {
				return nil, err
			}
			return &audioPreviews{run: env.Runner, maxDuration: md}, nil
		},
	})
}

// audioExts are extensions of audio files whose MIME type mime_type may not
// call audio/.
var audioExts = []string{"mka", "ac3", "eac3", "dts", "amr", "ape", "wv", "tta", "caf", "w64", "au", "snd", "mpc", "ra"}

// The preview is AAC-LC in an MP4 (.m4a, audio/mp4) with its index first,
// stereo at most, 48 kHz at most: 128 kb/s (64 kb/s mono) for recordings up
// to an hour, half that beyond (4 hours at 64 kb/s are 115 MB). It covers
// the whole recording up to max_duration.
const longAudio = 3600.0

type audioPreviews struct {
	run         *extractors.Runner
	maxDuration float64
}

var _ extractors.Extractor = (*audioPreviews)(nil)

// audioRate is the preview's bit rate for a stream of that many channels
// and declared duration (0: unknown, treated as long).
func audioRate(channels int, declared, limit float64) int {
	rate := 128_000
	if channels == 1 {
		rate = 64_000
	}
	if declared <= 0 || min(declared, limit) > longAudio {
		rate /= 2
	}
	return rate
}

func (x *audioPreviews) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	probe, err := av.Read(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	if v := probe.Video(); v != nil && !probe.IsStill() {
		return nil, unsupported("a moving picture: video_previews previews it")
	}
	a := probe.Audio()
	if a == nil {
		return nil, unsupported("no sound")
	}
	declared := declaredDuration(probe, a)
	args := decodeArgs(in.Path, x.maxDuration+overshoot)
	args = append(args, "-vn")
	args = append(args, audioArgs(a, audioRate(a.Channels, declared, x.maxDuration))...)
	args = append(args, lengthArgs(declared, x.maxDuration)...)
	args = append(args, containerArgs...)
	args = append(args, "file:preview.tmp.m4a")
	p, size, err := encodePreview(ctx, x.run, in.ArtifactDir, "preview.tmp.m4a", "preview.m4a", args, declared, x.maxDuration)
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: previewData(p, size, "preview.m4a", "audio/mp4"),
		Artifacts: []extractors.Artifact{{Path: "preview.m4a", Kind: "preview"}}}, nil
}
