package nsfw

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// nsfw_provider scores pictures and frames of videos for adult content
// with a provider (extractors/shared/provider, task nsfw) instead of the nsfwjs
// sidecar: for a deployment without Node, or with a better classifier
// behind a key. It writes what nsfw writes, in the same shapes: the data
// (nsfw_score, nsfw, scores by category) and for a video a segment per
// frame with summary.nsfw, read by the adult endpoints. The reference
// names such extractors by their provider's brand and omits them.
const ProviderName = "nsfw_provider"

// Frames of a video sent by default, and at most.
const (
	defaultProviderFrames = 30
	providerTimeout       = 15 * time.Minute
)

func init() {
	settings := append(provider.Settings("NSFW_API", "adult-content"),
		extractors.Setting{Name: "frames", Env: "NSFW_API_FRAMES", Kind: extractors.KindInt, Default: strconv.Itoa(defaultProviderFrames),
			Min: 1, Max: provider.MaxFrames,
			Doc: "frames of a video sent, spread over it (video_main_frames' when it ran); a picture is sent whole, at most 640 pixels"},
		thresholdSetting, maxPixelsSetting)
	extractors.MustRegister(extractors.Info{
		Name:           ProviderName,
		DisplayName:    "Adult Content (provider)",
		Family:         extractors.FamilyAdult,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: false, // it sends the item's pictures away, and costs by the picture
		Tools:          []string{"ffmpeg", "ffprobe"},
		Provider:       "adult-content",
		After:          []string{"video_main_frames"},
		Accept:         images.AcceptPictures,
		Timeout:        providerTimeout,
		Fields:         providerFields,
		Settings:       settings,
		New:            newProvider,
	})
}

var providerFields = func() []extractors.Field {
	docs := map[string]string{
		"source":          "the service that answered (its words), else the provider's host",
		"nsfw_score":      "adult-content score the provider gave, 0 safe to 1 unsafe; for a video the highest of its frames",
		"category":        "most probable category the provider gave: drawing, hentai, neutral, porn or sexy (for a video: of the mean scores); absent when it gave none",
		"frames_analysed": "pictures the provider gave a score for",
	}
	for _, c := range Categories {
		docs["scores."+c] = "probability of " + c + ", 0 to 1, when the provider gives it (for a video the highest of its frames)"
		docs["mean_scores."+c] = "video: mean probability of " + c + " over the frames the provider gave categories for (0 where it left it out)"
	}
	return shape.Fields(docs, extractors.Field{Path: "frames_sent", Type: extractors.TypeNumber, Doc: "pictures sent: 1 for an image, frames for a video"})
}()

type providerNSFW struct {
	client    *provider.Client
	run       *extractors.Runner
	load      *images.Loader
	frames    int
	threshold float64
}

var _ extractors.Extractor = (*providerNSFW)(nil)

func newProvider(env extractors.Env) (extractors.Extractor, error) {
	c, err := provider.FromEnv(env)
	if err != nil {
		return nil, err
	}
	n, err := env.Int("frames")
	if err != nil {
		return nil, err
	}
	th, err := readThreshold(env)
	if err != nil {
		return nil, err
	}
	px, err := readMaxPixels(env)
	if err != nil {
		return nil, err
	}
	return &providerNSFW{client: c, run: env.Runner, load: images.NewLoader(env.Runner, px), frames: n, threshold: th}, nil
}

func (x *providerNSFW) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	s, err := provider.Pictures(ctx, x.run, x.load, in, x.frames)
	if err != nil {
		return nil, err
	}
	var verdicts []provider.NSFWVerdict
	source := ""
	err = provider.CallMedia(ctx, x.client, "nsfw", s.Media(), func(batch []provider.Media, a provider.NSFWAnswer) error {
		v, err := a.Clean(len(batch), Categories)
		if err != nil {
			return err
		}
		verdicts = append(verdicts, v...)
		if source == "" {
			source = provider.Source(a.Source)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if source == "" {
		source = x.client.Host()
	}
	return x.result(s, verdicts, source)
}

// result sums the verdicts up as nsfw does: the highest and the mean
// score, the frames over the threshold, the scores by category; for a
// video one segment per frame with a verdict.
func (x *providerNSFW) result(s *provider.Sample, verdicts []provider.NSFWVerdict, source string) (*extractors.Result, error) {
	var maxU, sumU float64
	analysed, unsafe := 0, 0
	first := -1.0
	// A provider may leave out the categories it finds unlikely: in a
	// frame with categories, one left out counts as 0.
	maxS, sum, catFrames := map[string]float64{}, map[string]float64{}, 0
	res := &extractors.Result{}
	for i, v := range verdicts {
		if !v.OK {
			continue
		}
		analysed++
		maxU, sumU = math.Max(maxU, v.Score), sumU+v.Score
		var at *float64
		if s.Video() {
			at = s.Frames[i].Time
		}
		if v.Score >= x.threshold {
			unsafe++
			if at != nil && (first < 0 || *at < first) {
				first = *at
			}
		}
		var cats map[string]float64
		if len(v.Categories) > 0 {
			catFrames++
			cats = map[string]float64{}
		}
		for c, p := range v.Categories {
			maxS[c] = math.Max(maxS[c], p)
			sum[c] += p
			cats[c] = round4(p)
		}
		if at != nil {
			res.Segments = append(res.Segments, extractors.Segment{Time: *at, Summary: extractors.SegmentSummary{
				NSFW: &extractors.SegmentNSFW{Source: source, NSFW: v.Score >= x.threshold, NSFWScore: round4(v.Score), Categories: cats}}})
		}
	}
	if analysed == 0 {
		return nil, fmt.Errorf("provider nsfw: no usable score for any of the %d pictures sent", len(verdicts))
	}
	sort.SliceStable(res.Segments, func(i, j int) bool { return res.Segments[i].Time < res.Segments[j].Time })
	data := map[string]any{"source": source, "threshold": x.threshold, "nsfw_score": round4(maxU), "nsfw": maxU >= x.threshold,
		"frames_sent": len(verdicts), "frames_analysed": analysed, "frames_source": s.Source}
	if len(maxS) > 0 {
		mean := map[string]float64{}
		for c, total := range sum {
			mean[c] = total / float64(catFrames)
		}
		data["scores"], data["category"] = roundMap(maxS), topOf(mean)
		if s.Video() {
			data["mean_scores"] = roundMap(mean)
		}
	}
	if s.Video() {
		data["mean_nsfw_score"], data["nsfw_frames"] = round4(sumU/float64(analysed)), unsafe
		if first >= 0 {
			data["first_nsfw_time"] = math.Round(first*1000) / 1000
		}
	}
	return &extractors.Result{Data: data, Segments: res.Segments}, nil
}

func roundMap(m map[string]float64) map[string]any {
	out := make(map[string]any, len(m))
	for c, v := range m {
		out[c] = round4(v)
	}
	return out
}

// topOf is the most probable of the categories given (the first of
// Categories on a tie).
func topOf(m map[string]float64) string {
	best := ""
	for _, c := range Categories {
		if v, ok := m[c]; ok && (best == "" || v > m[best]) {
			best = c
		}
	}
	return best
}
