package objects

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
	"github.com/metaharvest/metaharvest/extractors/shared/vision"
)

// Name is the extractor's API name. The reference names its image and
// video recognition after providers' brands and omits them; the original
// product's clients send no name for it (their 48 names hold none), so
// there is no alias to accept.
const Name = "objects"

// Source names the model in segment tags and data.
const Source = "human-centernet"

// DefaultMinConfidence is the weakest object kept: on the hand-labelled
// pictures of docs/vision.md (TestConfidenceFloor), the floor with the
// most objects found (recall 0.67) while at least three in four kept are
// right (precision 0.78); 0.3 keeps 0.80 and finds 0.57, 0.2 keeps 0.61.
const DefaultMinConfidence = 0.25

const (
	defaultFrames = 30
	// maxLabels bounds the objects listed of one item.
	maxLabels = 500
	// pictureSide is the long side of what the sidecar gets.
	pictureSide = provider.FrameSide
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           Name,
		DisplayName:    "Objects (COCO)",
		Family:         extractors.FamilyRecognition,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"ffmpeg", "ffprobe"},
		After:          []string{"video_main_frames"},
		Accept:         images.AcceptPictures,
		// 100 frames at 0.3 to 1.5 s.
		Timeout: 10 * time.Minute,
		Check:   vision.Check,
		Settings: append(append([]extractors.Setting(nil), vision.Settings...),
			extractors.Setting{Name: "min_confidence", Env: "OBJECTS_MIN_CONFIDENCE", Kind: extractors.KindNumber,
				Default: strconv.FormatFloat(DefaultMinConfidence, 'f', -1, 64), Min: 0.1, Max: 1,
				Doc: "weakest object kept, 0.1 to 1 (0.25: 78% of the objects kept right, 67% of those present found, on the hand-labelled pictures of docs/vision.md)"},
			extractors.Setting{Name: "frames", Env: "OBJECTS_FRAMES", Kind: extractors.KindInt, Default: strconv.Itoa(defaultFrames), Min: 1, Max: provider.MaxFrames,
				Doc: "frames of a video analysed, spread over it (video_main_frames' when it ran)"},
			extractors.Setting{Name: "max_pixels", Env: "OBJECTS_MAX_PIXELS", Kind: extractors.KindInt, Default: strconv.Itoa(images.DefaultMaxPixels), Min: 1,
				Doc: "largest picture decoded, in pixels; larger ones are refused before decoding"},
		),
		Fields: []extractors.Field{
			{Path: "source", Type: extractors.TypeString, Doc: "the model: human-centernet (COCO's 80 classes)"},
			{Path: "min_confidence", Type: extractors.TypeNumber, Doc: "weakest object kept (OBJECTS_MIN_CONFIDENCE)"},
			{Path: "frames", Type: extractors.TypeNumber, Doc: "pictures analysed: 1 for a picture, frames for a video"},
			{Path: "frames_source", Type: extractors.TypeString, Doc: "image, video_main_frames (that extractor's frames) or sampled (frames taken here)"},
			{Path: "names", Type: extractors.TypeString, Doc: "the objects' names, each once, the most seen first"},
			{Path: "tags.name", Type: extractors.TypeString, Doc: "an object's name (COCO class: person, car, laptop ...)"},
			{Path: "tags.appearances", Type: extractors.TypeNumber, Doc: "pictures it was seen in"},
			{Path: "tags.confidence", Type: extractors.TypeNumber, Doc: "its highest confidence, 0..1"},
			{Path: "labels.name", Type: extractors.TypeString, Doc: "each object found, the most confident first (at most 500)"},
			{Path: "labels.confidence", Type: extractors.TypeNumber, Doc: "0..1"},
			{Path: "labels.time", Type: extractors.TypeNumber, Doc: "time of the frame it was seen in, seconds (videos)"},
			{Path: "labels.box.left", Type: extractors.TypeNumber, Doc: "left edge, fraction of the picture's width (0..1)"},
			{Path: "labels.box.top", Type: extractors.TypeNumber, Doc: "top edge, fraction of the picture's height (0..1)"},
			{Path: "labels.box.width", Type: extractors.TypeNumber, Doc: "fraction of the picture's width"},
			{Path: "labels.box.height", Type: extractors.TypeNumber, Doc: "fraction of the picture's height"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			x, err := build(env, vision.Open)
			if err != nil {
				return nil, err
			}
			x.client.Warm()
			return x, nil
		},
	})
}

type objects struct {
	run     *extractors.Runner
	load    *images.Loader
	client  *vision.Client
	tmp     string
	frames  int
	minConf float64
}

var (
	_ extractors.Extractor = (*objects)(nil)
	_ io.Closer            = (*objects)(nil)
)

// build makes the extractor on the worker process's shared sidecar pool,
// or on one of its own (tests: vision.Own).
func build(env extractors.Env, open func(*extractors.Runner, *slog.Logger, vision.Config, ...string) *vision.Client) (*objects, error) {
	minConf, err := env.Number("min_confidence")
	if err != nil {
		return nil, err
	}
	n, err := env.Int("frames")
	if err != nil {
		return nil, err
	}
	px, err := env.Int("max_pixels")
	if err != nil {
		return nil, err
	}
	cfg, err := vision.FromEnv(env)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "metaharvest-objects-")
	if err != nil {
		return nil, fmt.Errorf("objects: %w", err)
	}
	return &objects{run: env.Runner, load: images.NewLoader(env.Runner, int64(px)), client: open(env.Runner, env.Logger, cfg, vision.TaskObjects),
		tmp: tmp, frames: n, minConf: minConf}, nil
}

// Close lets go of the sidecar.
func (x *objects) Close() error {
	err := x.client.Close()
	os.RemoveAll(x.tmp)
	return err
}

// Object is one object found in a picture or a frame.
type Object struct {
	Name       string
	Confidence float64
	// Box is left, top, width, height in fractions of the picture.
	Box  [4]float64
	Time *float64
}

func (x *objects) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	if !strings.HasPrefix(in.MIME, "video/") {
		// A picture is decoded once, here, and sent as it decoded (no JPEG
		// between: it costs small pictures their weaker objects).
		pic, err := x.load.Load(ctx, in.Path, pictureSide)
		if err != nil {
			return nil, err
		}
		found, err := x.detect(ctx, pic.Image)
		if err != nil {
			return nil, err
		}
		return x.result(&provider.Sample{Frames: []provider.Frame{{}}, Source: provider.FramesImage}, found), nil
	}
	s, err := provider.Pictures(ctx, x.run, x.load, in, x.frames)
	if err != nil {
		return nil, err
	}
	var found []Object
	for _, fr := range s.Frames {
		img, err := jpeg.Decode(bytes.NewReader(fr.JPEG))
		if err != nil {
			return nil, fmt.Errorf("objects: decode frame: %w", err)
		}
		got, err := x.detect(ctx, img)
		if err != nil {
			if fr.Time != nil && ctx.Err() == nil {
				return nil, fmt.Errorf("frame at %.3f s: %w", *fr.Time, err)
			}
			return nil, err
		}
		for _, o := range got {
			o.Time = fr.Time
			found = append(found, o)
		}
	}
	return x.result(s, found), nil
}

// detect asks the sidecar about one picture and keeps the objects over
// the floor.
func (x *objects) detect(ctx context.Context, img image.Image) ([]Object, error) {
	rgba := images.Fit(img, pictureSide)
	b := rgba.Bounds()
	a, err := x.client.AskPicture(ctx, x.tmp, vision.RGB(rgba), b.Dx(), b.Dy(), vision.Request{Task: vision.TaskObjects})
	if err != nil {
		return nil, err
	}
	return Keep(a.Objects, b.Dx(), b.Dy(), x.minConf), nil
}

// Keep turns the sidecar's objects of a w x h picture into Objects: those
// of at least minConf with a name, boxes clipped to the picture and given
// in fractions of it.
func Keep(in []vision.Object, w, h int, minConf float64) []Object {
	var out []Object
	for _, o := range in {
		name := strings.TrimSpace(vision.Clip(o.Label, 64))
		if name == "" || !(o.Score >= minConf) || o.Score > 1 {
			continue
		}
		r := image.Rect(int(math.Floor(o.Box[0])), int(math.Floor(o.Box[1])), int(math.Ceil(o.Box[0]+o.Box[2])),
			int(math.Ceil(o.Box[1]+o.Box[3]))).Intersect(image.Rect(0, 0, w, h))
		if r.Empty() {
			continue
		}
		fw, fh := float64(w), float64(h)
		out = append(out, Object{Name: name, Confidence: round4(o.Score),
			Box: [4]float64{round4(float64(r.Min.X) / fw), round4(float64(r.Min.Y) / fh), round4(float64(r.Dx()) / fw), round4(float64(r.Dy()) / fh)}})
	}
	return out
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// result is the data, and for a video one segment per frame with objects.
func (x *objects) result(s *provider.Sample, found []Object) *extractors.Result {
	type count struct {
		name  string
		times map[float64]bool
		conf  float64
	}
	counts := map[string]*count{}
	var order []string
	bySegment := map[float64][]extractors.SegmentTag{}
	for _, o := range found {
		key := strings.ToLower(o.Name)
		c := counts[key]
		if c == nil {
			c = &count{name: o.Name, times: map[float64]bool{}}
			counts[key] = c
			order = append(order, key)
		}
		at := -1.0
		if o.Time != nil {
			at = *o.Time
		}
		c.conf = math.Max(c.conf, o.Confidence)
		if s.Video() && o.Time != nil {
			if !c.times[at] {
				bySegment[at] = append(bySegment[at], extractors.SegmentTag{Name: o.Name, Confidence: o.Confidence, Source: Source})
			} else {
				// One tag per name and frame: its best confidence.
				tags := bySegment[at]
				for i := range tags {
					if strings.EqualFold(tags[i].Name, o.Name) && o.Confidence > tags[i].Confidence {
						tags[i].Confidence = o.Confidence
					}
				}
			}
		}
		c.times[at] = true
	}
	sort.SliceStable(order, func(i, j int) bool { return len(counts[order[i]].times) > len(counts[order[j]].times) })
	names := make([]any, 0, len(order))
	tags := make([]any, 0, len(order))
	for _, k := range order {
		c := counts[k]
		names = append(names, c.name)
		tags = append(tags, map[string]any{"name": c.name, "appearances": len(c.times), "confidence": c.conf})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Confidence > found[j].Confidence })
	if len(found) > maxLabels {
		found = found[:maxLabels]
	}
	labels := make([]any, 0, len(found))
	for _, o := range found {
		l := map[string]any{"name": o.Name, "confidence": o.Confidence,
			"box": map[string]any{"left": o.Box[0], "top": o.Box[1], "width": o.Box[2], "height": o.Box[3]}}
		if o.Time != nil {
			l["time"] = *o.Time
		}
		labels = append(labels, l)
	}
	res := &extractors.Result{Data: map[string]any{"source": Source, "min_confidence": x.minConf, "frames": len(s.Frames),
		"frames_source": s.Source, "names": names, "tags": tags, "labels": labels}}
	for at, t := range bySegment {
		if len(res.Segments) >= extractors.MaxSegments {
			break
		}
		res.Segments = append(res.Segments, extractors.Segment{Time: at, Summary: extractors.SegmentSummary{Tags: t}})
	}
	sort.Slice(res.Segments, func(i, j int) bool { return res.Segments[i].Time < res.Segments[j].Time })
	return res
}
