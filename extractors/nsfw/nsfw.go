package nsfw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/vision"
)

// nsfw scores pictures and the frames of videos for adult content with
// nsfwjs, run offline by the vision sidecar (deploy/vision). The reference has
// no neutral API name for it; "nsfw" is the name the search layer already
// reads (nsfw.nsfw for the explicit-content analytics, the nsfw hit
// count), and video segments carry summary.nsfw for the adult endpoints.
func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "nsfw",
		DisplayName:    "Adult Content (nsfwjs)",
		Family:         extractors.FamilyAdult,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: false,
		Tools:          []string{"ffmpeg", "ffprobe"},
		After:          []string{"video_main_frames"},
		Accept:         images.AcceptPictures,
		// Up to 2000 frames of a video at 0.1 to 0.5 s each.
		Timeout:  time.Hour,
		Fields:   fields,
		Settings: settings,
		Check:    vision.Check,
		New:      newNSFW,
	})
}

// DefaultThreshold is the adult-content score from which a picture or a
// frame is nsfw: the adult categories are more probable than the others.
const DefaultThreshold = 0.5

var settings = append(append([]extractors.Setting(nil), vision.Settings...),
	extractors.Setting{Name: "model", Env: "NSFW_MODEL", Kind: extractors.KindChoice, Default: "MobileNetV2", Choices: "MobileNetV2 MobileNetV2Mid InceptionV3",
		Doc: "nsfwjs model: MobileNetV2 (224 px, fastest), MobileNetV2Mid (224 px) or InceptionV3 (299 px, several times slower, ~540 MB)"},
	thresholdSetting,
	maxPixelsSetting,
)

// Settings both adult-content extractors (nsfw, nsfw_provider) read.
var (
	thresholdSetting = extractors.Setting{Name: "threshold", Env: "NSFW_THRESHOLD", Kind: extractors.KindNumber,
		Default: strconv.FormatFloat(DefaultThreshold, 'f', -1, 64), Min: 0, Above: true, Max: 1,
		Doc: "adult-content score (0 to 1: for nsfwjs porn + hentai + sexy, for a provider its nsfw_score) from which a picture or a frame is nsfw"}
	maxPixelsSetting = extractors.Setting{Name: "max_pixels", Env: "NSFW_MAX_PIXELS", Kind: extractors.KindInt, Default: strconv.Itoa(images.DefaultMaxPixels), Min: 1,
		Doc: "largest picture decoded, in pixels; larger ones are refused before decoding"}
)

// readThreshold and readMaxPixels read those settings.
func readThreshold(env extractors.Env) (float64, error) { return env.Number("threshold") }

func readMaxPixels(env extractors.Env) (int64, error) {
	px, err := env.Int("max_pixels")
	return int64(px), err
}

// shape is what both adult-content extractors write (nsfw and
// nsfw_provider: the adult endpoints and the summaries read either),
// declared once; each gives the docs it words its own way and what only it
// writes.
var shape = func() extractors.Shape {
	f := extractors.Shape{
		{Path: "source", Type: extractors.TypeString, Doc: "the classifier"},
		{Path: "threshold", Type: extractors.TypeNumber, Doc: "adult-content score from which nsfw is true (NSFW_THRESHOLD)"},
		{Path: "nsfw_score", Type: extractors.TypeNumber, Doc: "adult-content score, 0 safe to 1 unsafe; for a video the highest of its frames"},
		{Path: "nsfw", Type: extractors.TypeBool, Doc: "nsfw_score reaches the threshold (for a video: in at least one frame)"},
		{Path: "category", Type: extractors.TypeString, Doc: "most probable category: drawing, hentai, neutral, porn or sexy (for a video: of the mean scores)"},
		{Path: "mean_nsfw_score", Type: extractors.TypeNumber, Doc: "video: mean adult-content score of the frames"},
		{Path: "nsfw_frames", Type: extractors.TypeNumber, Doc: "video: frames whose score reaches the threshold"},
		{Path: "first_nsfw_time", Type: extractors.TypeNumber, Doc: "video: time of the first such frame, seconds"},
		{Path: "frames_analysed", Type: extractors.TypeNumber, Doc: "pictures classified: 1 for an image, frames for a video"},
		{Path: "frames_source", Type: extractors.TypeString, Doc: "image, video_main_frames (the frames of that extractor) or sampled (frames taken here)"},
	}
	for _, c := range Categories {
		f = append(f,
			extractors.Field{Path: "scores." + c, Type: extractors.TypeNumber, Doc: "probability of " + c + ", 0 to 1 (for a video the highest of its frames)"},
			extractors.Field{Path: "mean_scores." + c, Type: extractors.TypeNumber, Doc: "video: mean probability of " + c + " over the frames"})
	}
	return f
}()

var fields = shape.Fields(map[string]string{
	"source":     "the classifier: nsfwjs",
	"nsfw_score": "adult-content score, 0 safe to 1 unsafe: the probability of porn, hentai or sexy; for a video the highest of its frames",
}, extractors.Field{Path: "model", Type: extractors.TypeString, Doc: "its model (MobileNetV2, MobileNetV2Mid, InceptionV3)"})

type nsfw struct {
	run       *extractors.Runner
	load      *images.Loader
	client    *vision.Client
	tmp       string // where pictures are written for the sidecar
	model     string
	side      int
	threshold float64
}

var (
	_ extractors.Extractor = (*nsfw)(nil)
	_ io.Closer            = (*nsfw)(nil) // Registry.Close lets go of the sidecar
)

func newNSFW(env extractors.Env) (extractors.Extractor, error) {
	x, err := build(env)
	if err != nil {
		return nil, err
	}
	x.client.Warm()
	return x, nil
}

// build makes the extractor without starting its sidecar, on the worker
// process's shared pool, or on one of its own (tests).
func build(env extractors.Env) (*nsfw, error) { return buildOn(env, vision.Open) }

func buildOn(env extractors.Env, open func(*extractors.Runner, *slog.Logger, vision.Config, ...string) *vision.Client) (*nsfw, error) {
	model, err := env.Choice("model")
	if err != nil {
		return nil, err
	}
	side, ok := modelSides[model]
	if !ok {
		return nil, fmt.Errorf("nsfw: no picture side known for model %s", model)
	}
	th, err := readThreshold(env)
	if err != nil {
		return nil, err
	}
	px, err := readMaxPixels(env)
	if err != nil {
		return nil, err
	}
	cfg, err := vision.FromEnv(env)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "metaharvest-nsfw-")
	if err != nil {
		return nil, fmt.Errorf("nsfw: %w", err)
	}
	return &nsfw{run: env.Runner, load: images.NewLoader(env.Runner, px), tmp: tmp, model: model, side: side, threshold: th,
		client: open(env.Runner, env.Logger, cfg, vision.TaskNSFW+":"+model)}, nil
}

func (x *nsfw) Close() error {
	err := x.client.Close()
	os.RemoveAll(x.tmp)
	return err
}

func (x *nsfw) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	var videoErr error
	if strings.HasPrefix(in.MIME, "video/") {
		res, err := x.video(ctx, in)
		var unprobed *probeError
		if !errors.Is(err, errStill) && !errors.As(err, &unprobed) {
			return res, err
		}
		// A picture with a video type (ffprobe reads no image2 file, and
		// reads a JPEG as a still) is classified as a picture.
		videoErr = err
	}
	pic, err := x.load.Load(ctx, in.Path, x.side*loadSide)
	if err != nil {
		if videoErr != nil && !errors.Is(videoErr, errStill) {
			return nil, videoErr
		}
		return nil, err
	}
	scores, err := x.classifyRGB(ctx, squeeze(pic.Image, x.side))
	if err != nil {
		return nil, err
	}
	u := scores.Unsafe()
	data := x.common("image", 1)
	data["nsfw_score"], data["nsfw"], data["category"] = round4(u), u >= x.threshold, scores.Top()
	data["scores"] = scoreMap(scores)
	return &extractors.Result{Data: data}, nil
}

// common is the data every result has.
func (x *nsfw) common(source string, frames int) map[string]any {
	return map[string]any{"source": "nsfwjs", "model": x.model, "threshold": x.threshold,
		"frames_analysed": frames, "frames_source": source}
}

func scoreMap(s Scores) map[string]any {
	m := make(map[string]any, len(Categories))
	for _, c := range Categories {
		m[c] = round4(s[c])
	}
	return m
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
