package ocr

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/metaharvest/metaharvest/extractors"
)

// Where the frames of a video come from.
const (
	fromMainFrames = "video_main_frames" // the frames video_main_frames kept
	fromSampling   = "sampled"           // our own decode (sampling.go)
)

// maxFrameText bounds the text kept per frame in tesseract's data (the
// analyses read it there); the item's text holds more.
const maxFrameText = 1024

// videoFrame is a picture of a video to read.
type videoFrame struct {
	Time float64
	Path string
}

// frameReading is what one frame said.
type frameReading struct {
	Time       float64
	Text       string
	Words      int
	Lines      int
	Confidence float64
	HasText    bool
}

// videoReading is the text of a video's frames, frame by frame in time
// order (frames without text included: they are what textless is made
// of).
type videoReading struct {
	Source string
	// Interval is the widest regular spacing of the frames, seconds:
	// ranges found on them are exact to it.
	Interval float64
	// Duration is the length of video the frames stand for.
	Duration float64
	Frames   []frameReading
	// Skipped counts frames of video_main_frames left unread by the
	// image budget; Failed the frames tesseract could not read.
	Skipped, Failed int
}

// videoKey is the Input.Shared key of a video's reading: tesseract and
// the analyses of a harvest read each frame once between them.
const videoKey = "ocr.video"

// readVideo returns the text of the video's frames, read once per harvest
// of the file by whichever extractor of the package asks first.
func (e *engine) readVideo(ctx context.Context, in *extractors.Input) (*videoReading, error) {
	v, err := in.Shared(videoKey, func() (any, error) { return e.readVideoFrames(ctx, in) })
	if err != nil {
		return nil, err
	}
	return v.(*videoReading), nil
}

// videoText is what the analyses read: tesseract's per-frame results when
// it ran before them in the harvest, else a reading of their own (shared
// among them).
func (e *engine) videoText(ctx context.Context, in *extractors.Input) (*videoReading, error) {
	if v, ok := readingFromTesseract(in.Prior["tesseract"]); ok {
		return v, nil
	}
	return e.readVideo(ctx, in)
}

func (e *engine) readVideoFrames(ctx context.Context, in *extractors.Input) (*videoReading, error) {
	frames, vr, err := mainFrames(in, e.maxImages)
	if err != nil {
		return nil, err
	}
	if frames == nil {
		s, err := sampleFrames(ctx, e.run, in, e.maxImages)
		if err != nil {
			return nil, err
		}
		defer s.cleanup()
		frames = s.frames
		vr = &videoReading{Source: fromSampling, Interval: max(s.plan.Dense, s.plan.Sparse), Duration: s.duration}
		if len(frames) < 2 || s.duration <= s.plan.Head {
			vr.Interval = s.plan.Dense
		}
	}
	readings, failed, err := e.readFrames(ctx, frames)
	if err != nil {
		return nil, err
	}
	vr.Frames, vr.Failed = readings, failed
	if n := len(readings); n > 0 {
		vr.Duration = max(vr.Duration, readings[n-1].Time)
	}
	return vr, nil
}

// mainFramesData is the part of video_main_frames' data read here.
type mainFramesData struct {
	Interval float64 `json:"interval"`
	Duration float64 `json:"duration"`
	Frames   []struct {
		Time float64 `json:"time"`
		Path string  `json:"path"`
	} `json:"frames"`
}

// mainFrames lists the frames video_main_frames kept in this harvest (nil
// when it did not run), at most maxImages of them spread evenly over the
// list.
func mainFrames(in *extractors.Input, maxImages int) ([]videoFrame, *videoReading, error) {
	raw, ok := in.Prior["video_main_frames"]
	if !ok {
		return nil, nil, nil
	}
	var d mainFramesData
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, nil, fmt.Errorf("video_main_frames data: %w", err)
	}
	dir := in.ArtifactsOf("video_main_frames")
	var all []videoFrame
	for _, f := range d.Frames {
		p := filepath.FromSlash(f.Path)
		if !filepath.IsLocal(p) || math.IsNaN(f.Time) || f.Time < 0 || math.IsInf(f.Time, 0) {
			return nil, nil, fmt.Errorf("video_main_frames data: frame %q at %v", clip(f.Path, 60), f.Time)
		}
		all = append(all, videoFrame{Time: f.Time, Path: filepath.Join(dir, p)})
	}
	if len(all) == 0 {
		return nil, nil, nil // nothing kept (a stream without frames): sample ourselves
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time < all[j].Time })
	kept := spread(all, maxImages)
	vr := &videoReading{Source: fromMainFrames, Interval: d.Interval, Duration: d.Duration, Skipped: len(all) - len(kept)}
	return kept, vr, nil
}

// spread keeps n of frames (all when they are fewer), evenly spaced in the
// list, the first and the last included.
func spread(frames []videoFrame, n int) []videoFrame {
	if len(frames) <= n {
		return frames
	}
	if n == 1 {
		return frames[:1]
	}
	out := make([]videoFrame, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, frames[i*(len(frames)-1)/(n-1)])
	}
	return out
}

// readFrames reads the frames. A frame tesseract fails on is left out and
// counted; the reading fails when every frame did.
func (e *engine) readFrames(ctx context.Context, frames []videoFrame) (readings []frameReading, failed int, err error) {
	paths := make([]string, len(frames))
	for i, f := range frames {
		paths[i] = f.Path
	}
	rs, errs, err := e.readAll(ctx, paths, frameConfidence)
	if err != nil {
		return nil, 0, err
	}
	var firstErr error
	for i, r := range rs {
		if errs[i] != nil {
			failed++
			firstErr = cmp.Or(firstErr, fmt.Errorf("frame at %.3f s: %w", frames[i].Time, errs[i]))
			continue
		}
		readings = append(readings, frameReading{Time: frames[i].Time, Text: r.Text, Words: r.Words, Lines: r.Lines,
			Confidence: r.Confidence, HasText: r.hasText()})
	}
	if failed > 0 && len(readings) == 0 {
		return nil, failed, firstErr
	}
	return readings, failed, nil
}

// tesseractFrames is the part of tesseract's data the analyses read.
type tesseractFrames struct {
	FramesSource  string  `json:"frames_source"`
	FrameInterval float64 `json:"frame_interval"`
	Duration      float64 `json:"analysed_duration"`
	Frames        []struct {
		Time       float64 `json:"time"`
		Text       string  `json:"text"`
		Words      int     `json:"words"`
		Lines      int     `json:"lines"`
		Confidence float64 `json:"confidence"`
		HasText    bool    `json:"has_text"`
	} `json:"frames"`
}

// readingFromTesseract rebuilds a video's reading from tesseract's data;
// ok is false when it holds none (tesseract did not run, or read a
// picture or a document).
func readingFromTesseract(raw json.RawMessage) (*videoReading, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var d tesseractFrames
	if err := json.Unmarshal(raw, &d); err != nil || d.FramesSource == "" {
		return nil, false
	}
	vr := &videoReading{Source: d.FramesSource, Interval: d.FrameInterval, Duration: d.Duration}
	for _, f := range d.Frames {
		if math.IsNaN(f.Time) || math.IsInf(f.Time, 0) || f.Time < 0 {
			return nil, false
		}
		vr.Frames = append(vr.Frames, frameReading{Time: f.Time, Text: f.Text, Words: f.Words, Lines: f.Lines,
			Confidence: f.Confidence, HasText: f.HasText})
	}
	sort.SliceStable(vr.Frames, func(i, j int) bool { return vr.Frames[i].Time < vr.Frames[j].Time })
	return vr, true
}
