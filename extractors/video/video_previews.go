package video

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "video_previews",
		DisplayName:    "Video Previews",
		Family:         extractors.FamilyVideo,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"ffmpeg", "ffprobe"},
		Accept:         acceptMedia([]string{"video/"}, videoExts),
		// A whole video is decoded and encoded again: four hours take about
		// an hour and a half of one CPU.
		Timeout: 3 * time.Hour,
		Fields: append(slices.Clone(previewFields),
			extractors.Field{Path: "width", Type: extractors.TypeNumber, Doc: "pixels"},
			extractors.Field{Path: "height", Type: extractors.TypeNumber, Doc: "pixels"},
			extractors.Field{Path: "video_codec", Type: extractors.TypeString, Doc: "h264"},
		),
		Settings: []extractors.Setting{
			{Name: "max_duration", Env: "VIDEO_PREVIEWS_MAX_DURATION", Kind: extractors.KindNumber, Default: "14400", Min: 1, Max: 7 * 24 * 3600,
				Doc: "seconds of a video previewed at most (its beginning)"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			md, err := env.Number("max_duration")
			if err != nil {
				return nil, err
			}
			return &videoPreviews{run: env.Runner, maxDuration: md}, nil
		},
	})
}

// The preview is the whole video (up to max_duration), so that a segment
// found by search can be played at its time. Its size is bounded by its
// bit rate: videos up to half an hour get 854x480 at up to 1 Mb/s with
// 96 kb/s sound; longer ones 640x360 at a rate that keeps the file near
// previewBudget (between 100 and 600 kb/s of picture), with 64 kb/s sound.
// H.264 Main profile, level 3.1, at most 30 frames a second, a keyframe
// every 2 seconds (seeking), AAC-LC stereo, MP4 with the index first.
const (
	shortPreview  = 1800.0
	previewBudget = 256 << 20 // bytes
)

type videoPreviews struct {
	run         *extractors.Runner
	maxDuration float64
}

var _ extractors.Extractor = (*videoPreviews)(nil)

// previewRates are the picture box and the bit rates of a preview of a
// video of the given declared duration (0: unknown, treated as long).
func previewRates(declared, limit float64) (boxW, boxH, videoRate, audioRate int) {
	if declared > 0 && min(declared, limit) <= shortPreview {
		return 854, 480, 1_000_000, 96_000
	}
	span := limit
	if declared > 0 {
		span = min(declared, limit)
	}
	rate := float64(previewBudget)*8/span - 64_000
	return 640, 360, int(min(600_000, max(100_000, rate))), 64_000
}

// frameRateFilter halves (or more) a frame rate above 30 frames a second,
// keeping the cadence (59.94 gives 29.97); "" when none is needed.
func frameRateFilter(fr float64) string {
	if fr <= 30.5 || math.IsInf(fr, 0) || math.IsNaN(fr) {
		return ""
	}
	div := math.Ceil(fr / 30.5)
	return fmt.Sprintf(",fps=%s", num(math.Round(fr/div*1000)/1000))
}

// deinterlaceFilter is yadif (one frame per frame, only frames flagged
// interlaced) for a stream whose fields are interlaced, so that the
// progressive preview shows no combing; "" for progressive or unknown.
func deinterlaceFilter(fieldOrder string) string {
	switch fieldOrder {
	case "tt", "bb", "tb", "bt":
		return "yadif=mode=send_frame:deint=interlaced,"
	}
	return ""
}

func (x *videoPreviews) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	probe, v, err := movingPicture(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	declared := probe.Duration()
	boxW, boxH, vRate, aRate := previewRates(declared, x.maxDuration)
	args := decodeArgs(in.Path, x.maxDuration+overshoot)
	args = append(args, "-map", fmt.Sprintf("0:%d", v.Index),
		"-vf", deinterlaceFilter(v.FieldOrder)+fitScale(boxW, boxH)+frameRateFilter(v.FrameRate())+",format=yuv420p",
		"-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-level:v", "3.1",
		"-threads", decodeThreads, "-crf", "26", "-maxrate", fmt.Sprint(vRate), "-bufsize", fmt.Sprint(2*vRate),
		"-force_key_frames", "expr:gte(t,n_forced*2)")
	if a := probe.Audio(); a != nil {
		args = append(args, audioArgs(a, aRate)...)
	}
	args = append(args, lengthArgs(declared, x.maxDuration)...)
	args = append(args, containerArgs...)
	args = append(args, "file:preview.tmp.mp4")
	p, size, err := encodePreview(ctx, x.run, in.ArtifactDir, "preview.tmp.mp4", "preview.mp4", args, declared, x.maxDuration)
	if err != nil {
		return nil, err
	}
	data := previewData(p, size, "preview.mp4", "video/mp4")
	w, _ := data["width"].(int)
	h, _ := data["height"].(int)
	return &extractors.Result{Data: data,
		Artifacts: []extractors.Artifact{{Path: "preview.mp4", Kind: "preview", Width: w, Height: h}}}, nil
}
