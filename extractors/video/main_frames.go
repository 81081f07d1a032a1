package video

import (
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// frameBox bounds the frames: at most 640 pixels on either side, aspect
// kept (a 1920x1080 video gives 640x360 frames).
const frameBox = 640

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "video_main_frames",
		DisplayName:    "Video Main Frames",
		Family:         extractors.FamilyVideo,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"ffmpeg", "ffprobe"},
		Accept:         acceptMedia([]string{"video/"}, videoExts),
		// A whole video is decoded: four hours of 1080p take about half an
		// hour of one CPU.
		Timeout: 2 * time.Hour,
		Fields: []extractors.Field{
			{Path: "count", Type: extractors.TypeNumber, Doc: "frames kept"},
			{Path: "interval", Type: extractors.TypeNumber, Doc: "seconds between periodic frames (widened for long videos)"},
			{Path: "duration", Type: extractors.TypeNumber, Doc: "seconds of video analysed (at most max_duration)"},
			{Path: "frames.time", Type: extractors.TypeNumber, Doc: "seconds from the start of the video, 3 decimals"},
			{Path: "frames.path", Type: extractors.TypeString, Doc: "JPEG file relative to the extractor's artifact directory", Internal: true},
			{Path: "frames.width", Type: extractors.TypeNumber, Doc: "pixels"},
			{Path: "frames.height", Type: extractors.TypeNumber, Doc: "pixels"},
			{Path: "frames.reason", Type: extractors.TypeString, Doc: "scene, keyframe or interval"},
			{Path: "frames.score", Type: extractors.TypeNumber, Doc: "scene change score of the frame, 0 to 1"},
		},
		Settings: []extractors.Setting{
			{Name: "max_frames", Env: "VIDEO_MAIN_FRAMES_MAX", Kind: extractors.KindNumber, Default: "300", Min: 2, Max: extractors.MaxSegments,
				Doc: "most frames kept per video"},
			{Name: "interval", Env: "VIDEO_MAIN_FRAMES_INTERVAL", Kind: extractors.KindNumber, Default: "10", Min: 0.5, Max: 3600,
				Doc: "seconds between periodic frames, widened so that they number at most half of max_frames"},
			{Name: "scene_threshold", Env: "VIDEO_MAIN_FRAMES_SCENE_THRESHOLD", Kind: extractors.KindNumber, Default: "0.3", Min: 0.01, Max: 1,
				Doc: "scene change score above which a frame starts a scene"},
			{Name: "max_duration", Env: "VIDEO_MAIN_FRAMES_MAX_DURATION", Kind: extractors.KindNumber, Default: "14400", Min: 1, Max: 7 * 24 * 3600,
				Doc: "seconds of a video analysed at most"},
		},
		New: newMainFrames,
	})
}

// videoExts are extensions of video files whose MIME type mime_type does
// not call video/ (MPEG transport streams, raw streams, broadcast
// containers: application/octet-stream). TypeScript sources named .ts or
// .mts are text and refused by acceptMedia.
var videoExts = []string{"ts", "mts", "m2ts", "m2t", "mxf", "y4m", "h264", "264", "h265", "265", "hevc", "ivf", "nut", "dv", "m2v", "vob"}

type mainFrames struct {
	run *extractors.Runner
	set frameSettings
}

var _ extractors.Extractor = (*mainFrames)(nil)

func newMainFrames(env extractors.Env) (extractors.Extractor, error) {
	n, err := env.Number("max_frames")
	if err != nil {
		return nil, err
	}
	iv, err := env.Number("interval")
	if err != nil {
		return nil, err
	}
	th, err := env.Number("scene_threshold")
	if err != nil {
		return nil, err
	}
	md, err := env.Number("max_duration")
	if err != nil {
		return nil, err
	}
	return &mainFrames{run: env.Runner, set: frameSettings{MaxFrames: int(n), Interval: iv, Threshold: th, MaxDuration: md}}, nil
}

// frame is one frame written by the decoding pass.
type frame struct {
	ms     int64
	reason string
	score  float64
	file   string // where ffmpeg wrote it
}

func (x *mainFrames) Extract(ctx context.Context, in *extractors.Input) (res *extractors.Result, err error) {
	probe, v, err := movingPicture(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	declared := declaredDuration(probe, v)
	plan := planFrames(declared, x.set)

	work := filepath.Join(in.ArtifactDir, ".work")
	defer os.RemoveAll(work)
	defer func() {
		if err != nil {
			os.RemoveAll(in.ArtifactDir) // no half-written frames left behind
		}
	}()
	for _, o := range frameOutputs {
		if err := os.MkdirAll(filepath.Join(work, o), 0o755); err != nil {
			return nil, extractors.Transient(fmt.Errorf("make frame directory: %w", err))
		}
	}
	args := append(decodeArgs(in.Path, plan.Limit+overshoot), "-filter_threads", "1",
		"-filter_complex", plan.filterGraph(v.Index))
	args = append(args, plan.outputArgs()...)
	if _, err := x.run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Dir: work, Heavy: true,
		MaxMemory: decodeMemory, MaxOutput: 1 << 20}); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("decode frames: %w", err)
	}

	decoded, err := lastPrintedTime(filepath.Join(work, "progress.txt"))
	if err != nil {
		return nil, err
	}
	if math.IsNaN(decoded) {
		return nil, errors.New("no frame could be decoded")
	}
	if err := checkExtent(declared, decoded, plan.Limit); err != nil {
		return nil, err
	}
	var frames []frame
	for _, o := range frameOutputs {
		got, err := outputFrames(work, o)
		if err != nil {
			return nil, err
		}
		frames = append(frames, got...)
	}
	frames = keepFrames(frames, plan.MaxFrames)
	return x.result(in.ArtifactDir, frames, plan, min(decoded, plan.Limit))
}

// result moves the kept frames into frames/ and reports them.
func (x *mainFrames) result(dir string, frames []frame, plan framePlan, decoded float64) (*extractors.Result, error) {
	if err := os.MkdirAll(filepath.Join(dir, "frames"), 0o755); err != nil {
		return nil, extractors.Transient(fmt.Errorf("make frame directory: %w", err))
	}
	res := &extractors.Result{}
	list := make([]any, 0, len(frames))
	for _, f := range frames {
		rel := fmt.Sprintf("frames/%09d.jpg", f.ms)
		if err := os.Rename(f.file, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return nil, extractors.Transient(fmt.Errorf("keep frame: %w", err))
		}
		w, h, err := jpegSize(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		t := float64(f.ms) / 1000
		list = append(list, map[string]any{"time": t, "path": rel, "width": w, "height": h,
			"reason": f.reason, "score": math.Round(f.score*1000) / 1000})
		res.Artifacts = append(res.Artifacts, extractors.Artifact{Path: rel, Kind: "frame", Width: w, Height: h})
		res.Segments = append(res.Segments, extractors.Segment{Time: t,
			Thumbnail: &extractors.Thumbnail{Path: rel, Width: w, Height: h, Type: "image"}})
	}
	res.Data = map[string]any{"count": len(frames), "interval": plan.Interval,
		"duration": math.Round(decoded*1000) / 1000, "frames": list}
	return res, nil
}

// lastPrintedTime is the time of the last frame of the progress tap; NaN
// when no frame was decoded.
func lastPrintedTime(path string) (float64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return math.NaN(), nil
	}
	if err != nil {
		return 0, extractors.Transient(fmt.Errorf("read progress: %w", err))
	}
	defer f.Close()
	last := math.NaN()
	err = scanPrinted(f, func(p printedFrame) error {
		if !math.IsNaN(p.Time) {
			last = p.Time
		}
		return nil
	})
	return last, err
}

// outputFrames lists the frames one output wrote, with the scores its
// metadata file printed. The image2 muxer writes them in time order and
// the metadata filter prints them in the same order, so the n-th file by
// time is the n-th printed frame; a print whose time disagrees (beyond the
// printed precision) leaves the score at 0.
func outputFrames(work, reason string) ([]frame, error) {
	entries, err := os.ReadDir(filepath.Join(work, reason))
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("list frames: %w", err))
	}
	var out []frame
	for _, e := range entries {
		ms, ok := frameMillis(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		out = append(out, frame{ms: ms, reason: reason, file: filepath.Join(work, reason, e.Name())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ms < out[j].ms })
	f, err := os.Open(filepath.Join(work, reason+".txt"))
	if err != nil {
		return out, nil // no frame reached the print: scores stay 0
	}
	defer f.Close()
	i := 0
	err = scanPrinted(f, func(p printedFrame) error {
		if i < len(out) && math.Abs(p.Time-float64(out[i].ms)/1000) <= max(0.002, p.Time*1e-5) {
			out[i].score = p.Score
		}
		i++
		return nil
	})
	return out, err
}

// priority orders reasons: at one moment a scene change says most, then a
// keyframe, then a periodic frame.
var priority = map[string]int{"scene": 0, "keyframe": 1, "interval": 2}

// keepFrames drops frames within dupWindow of a better one at about the
// same moment, then, above max, keeps scene changes first, then periodic
// frames (they cover the video evenly), then keyframes. It returns them in
// time order and removes the files of the others.
func keepFrames(frames []frame, maxFrames int) []frame {
	sort.SliceStable(frames, func(i, j int) bool { return frames[i].ms < frames[j].ms })
	var kept, dropped []frame
	for _, f := range frames {
		if n := len(kept); n > 0 && float64(f.ms-kept[n-1].ms)/1000 < dupWindow {
			if priority[f.reason] < priority[kept[n-1].reason] {
				dropped = append(dropped, kept[n-1])
				kept[n-1] = f
			} else {
				dropped = append(dropped, f)
			}
			continue
		}
		kept = append(kept, f)
	}
	if len(kept) > maxFrames {
		coverage := map[string]int{"scene": 0, "interval": 1, "keyframe": 2}
		sort.SliceStable(kept, func(i, j int) bool { return coverage[kept[i].reason] < coverage[kept[j].reason] })
		dropped = append(dropped, kept[maxFrames:]...)
		kept = kept[:maxFrames]
		sort.SliceStable(kept, func(i, j int) bool { return kept[i].ms < kept[j].ms })
	}
	for _, f := range dropped {
		os.Remove(f.file)
	}
	return kept
}

// jpegSize reads the dimensions of a frame ffmpeg wrote.
func jpegSize(path string) (int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, extractors.Transient(fmt.Errorf("open frame: %w", err))
	}
	defer f.Close()
	cfg, err := jpeg.DecodeConfig(f)
	if err != nil {
		return 0, 0, fmt.Errorf("frame %s: %w", filepath.Base(path), err)
	}
	return cfg.Width, cfg.Height, nil
}
