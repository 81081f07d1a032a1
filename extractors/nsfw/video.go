package nsfw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/extractors/shared/vision"
)

// A video is classified frame by frame: the frames video_main_frames kept
// when it ran in the harvest (scene changes and one every 10 s by
// default, so the adult histograms have a score in each bucket), else
// frames sampled here in one ffmpeg pass. Each frame gives a segment at
// its time with summary.nsfw.

const (
	// maxFrames bounds the frames of video_main_frames classified.
	maxFrames = 2000
	// Sampling: one frame every interval seconds (a whole number, at least
	// sampleMinInterval), at most sampleFrames; from keyframesFrom seconds
	// apart only key frames are decoded.
	sampleFrames      = 300
	sampleMinInterval = 1
	keyframesFrom     = 4
	sampleMemory      = 2 << 30
)

// errStill is a "video" that is one picture (a JPEG called video/...):
// it is classified as an image.
var errStill = errors.New("a still picture")

// probeError is a file ffprobe could not read: it may still be a picture.
type probeError struct{ err error }

func (e *probeError) Error() string { return e.err.Error() }
func (e *probeError) Unwrap() error { return e.err }

// frameScores are the scores of one frame at time (seconds).
type frameScores struct {
	time   float64
	scores Scores
}

func (x *nsfw) video(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if raw, ok := in.Prior["video_main_frames"]; ok {
		list, err := ParseMainFrames(raw)
		if err != nil {
			return nil, err
		}
		if len(list) > 0 {
			dir := in.ArtifactsOf("video_main_frames")
			got := make([]frameScores, 0, len(list))
			for _, mf := range list {
				pic, err := x.load.Load(ctx, filepath.Join(dir, filepath.FromSlash(mf.Path)), x.side*loadSide)
				if err == nil {
					var s Scores
					if s, err = x.classifyRGB(ctx, squeeze(pic.Image, x.side)); err == nil {
						got = append(got, frameScores{time: mf.Time, scores: s})
						continue
					}
				}
				if ctx.Err() != nil {
					return nil, err
				}
				return nil, fmt.Errorf("frame at %.3f s (%s): %w", mf.Time, vision.Clip(mf.Path, 80), err)
			}
			return x.videoResult("video_main_frames", got), nil
		}
	}
	got, err := x.sample(ctx, in)
	if err != nil {
		return nil, err
	}
	return x.videoResult("sampled", got), nil
}

// sample takes frames every interval seconds in one ffmpeg pass, already
// squeezed to the model's size as raw RGB, and classifies them.
func (x *nsfw) sample(ctx context.Context, in *extractors.Input) ([]frameScores, error) {
	probe, err := av.Read(ctx, x.run, in)
	if err != nil {
		if ctx.Err() != nil || extractors.IsTransient(err) {
			return nil, err
		}
		return nil, &probeError{err}
	}
	v := probe.Video()
	switch {
	case v == nil:
		return nil, fmt.Errorf("no video stream: %w", extractors.ErrUnsupported)
	case probe.IsStill():
		return nil, errStill
	case int64(v.Width)*int64(v.Height) > x.load.MaxPixels():
		return nil, fmt.Errorf("%w: video of %dx%d pixels", images.ErrTooLarge, v.Width, v.Height)
	}
	interval := SampleInterval(probe.Duration())
	args := []string{"-nostdin", "-v", "error"}
	if interval >= keyframesFrom {
		args = append(args, "-skip_frame", "nokey")
	}
	args = append(args, av.InputArgs(in.Path)...)
	side := strconv.Itoa(x.side)
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn",
		"-vf", "fps=1/"+strconv.Itoa(interval)+",scale="+side+":"+side+":flags=bicubic,format=rgb24",
		"-frames:v", strconv.Itoa(sampleFrames), "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1")
	frameBytes := x.side * x.side * 3
	out, err := x.run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true, MaxMemory: sampleMemory,
		MaxOutput: (sampleFrames + 1) * frameBytes})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("sample frames: ffmpeg: %w", err)
	}
	n := min(len(out)/frameBytes, sampleFrames)
	if n == 0 {
		return nil, errors.New("sample frames: ffmpeg gave no frame")
	}
	got := make([]frameScores, 0, n)
	for i := range n {
		t := float64(i * interval)
		s, err := x.classifyRGB(ctx, out[i*frameBytes:(i+1)*frameBytes])
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("frame at %.3f s: %w", t, err)
		}
		got = append(got, frameScores{time: t, scores: s})
	}
	return got, nil
}

// SampleInterval is the seconds between sampled frames of a video of
// duration seconds: one a second, widened so that a long video gives at
// most sampleFrames.
func SampleInterval(duration float64) int {
	if !(duration > 0) || math.IsInf(duration, 0) {
		return sampleMinInterval
	}
	return max(sampleMinInterval, int(math.Ceil(min(duration, 1e9)/sampleFrames)))
}

// videoResult is the data of a video and its segments, one per frame.
func (x *nsfw) videoResult(source string, frames []frameScores) *extractors.Result {
	maxS, sum := Scores{}, Scores{}
	var maxU, sumU float64
	unsafeFrames := 0
	first := -1.0
	res := &extractors.Result{Segments: make([]extractors.Segment, 0, len(frames))}
	for _, f := range frames {
		u := f.scores.Unsafe()
		for _, c := range Categories {
			maxS[c] = math.Max(maxS[c], f.scores[c])
			sum[c] += f.scores[c]
		}
		maxU = math.Max(maxU, u)
		sumU += u
		if u >= x.threshold {
			unsafeFrames++
			if first < 0 {
				first = f.time
			}
		}
		cats := make(map[string]float64, len(Categories))
		for _, c := range Categories {
			cats[c] = round4(f.scores[c])
		}
		res.Segments = append(res.Segments, extractors.Segment{Time: f.time, Summary: extractors.SegmentSummary{
			NSFW: &extractors.SegmentNSFW{Source: "nsfwjs", NSFW: u >= x.threshold, NSFWScore: round4(u), Categories: cats}}})
	}
	n := float64(len(frames))
	mean := Scores{}
	for _, c := range Categories {
		mean[c] = sum[c] / n
	}
	data := x.common(source, len(frames))
	data["nsfw_score"], data["nsfw"], data["mean_nsfw_score"] = round4(maxU), maxU >= x.threshold, round4(sumU/n)
	data["nsfw_frames"], data["category"] = unsafeFrames, mean.Top()
	data["scores"], data["mean_scores"] = scoreMap(maxS), scoreMap(mean)
	if first >= 0 {
		data["first_nsfw_time"] = math.Round(first*1000) / 1000
	}
	res.Data = data
	return res
}

// MainFrame is one frame of video_main_frames: its file is Path below that
// extractor's artifact directory.
type MainFrame struct {
	Time float64
	Path string
}

// ParseMainFrames reads video_main_frames' data: the frames with a usable
// time and a path inside its artifact directory, in time order, at most
// maxFrames.
func ParseMainFrames(raw []byte) ([]MainFrame, error) {
	var mf struct {
		Frames []struct {
			Time float64 `json:"time"`
			Path string  `json:"path"`
		} `json:"frames"`
	}
	if err := json.Unmarshal(raw, &mf); err != nil {
		return nil, fmt.Errorf("read video_main_frames data: %w", err)
	}
	var out []MainFrame
	for _, f := range mf.Frames {
		if math.IsNaN(f.Time) || math.IsInf(f.Time, 0) || f.Time < 0 || f.Path == "" || strings.ContainsRune(f.Path, 0) ||
			!filepath.IsLocal(filepath.FromSlash(f.Path)) {
			continue
		}
		out = append(out, MainFrame{Time: f.Time, Path: f.Path})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	if len(out) > maxFrames {
		out = out[:maxFrames]
	}
	return out, nil
}
