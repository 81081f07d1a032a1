package recognition

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// The picture analyses (tags, logos) send a picture item, or frames spread
// over a video, to their provider (provider.Pictures) and store what it
// saw: every finding, the names counted, and for a video a segment at each
// frame's time with what was seen in it, in the shapes the segment summary
// has (tags, people, logos), which the item summary counts.

// pictureTimeout is the time limit of a picture analysis: up to 100 frames
// decoded, and sent in a few calls that may each be retried.
const pictureTimeout = 10 * time.Minute

// defaultPictureFrames is how many frames of a video are sent by default.
const defaultPictureFrames = 10

// pictureSettings are the settings of a picture analysis besides its
// provider's: the frames of a video sent, and the largest picture decoded.
func pictureSettings(prefix, what string) []extractors.Setting {
	return []extractors.Setting{
		{Name: "frames", Env: prefix + "_FRAMES", Kind: extractors.KindInt, Default: strconv.Itoa(defaultPictureFrames), Min: 1, Max: provider.MaxFrames,
			Doc: "frames of a video sent for " + what + ", spread over it (video_main_frames' when it ran); a picture is sent whole, at most 640 pixels"},
		{Name: "max_pixels", Env: prefix + "_MAX_PIXELS", Kind: extractors.KindInt, Default: strconv.Itoa(images.DefaultMaxPixels), Min: 1,
			Doc: "largest picture decoded, in pixels; larger ones are refused before decoding"},
	}
}

// pictureCommon is what a picture analysis is made with.
type pictureCommon struct {
	client *provider.Client
	run    *extractors.Runner
	load   *images.Loader
	frames int
}

func newPictureCommon(env extractors.Env, prefix string) (pictureCommon, error) {
	c, err := provider.FromEnv(env)
	if err != nil {
		return pictureCommon{}, err
	}
	n, err := env.Int("frames")
	if err != nil {
		return pictureCommon{}, err
	}
	px, err := env.Int("max_pixels")
	if err != nil {
		return pictureCommon{}, err
	}
	return pictureCommon{client: c, run: env.Runner, load: images.NewLoader(env.Runner, int64(px)), frames: n}, nil
}

// sample is what is sent of the item.
func (p pictureCommon) sample(ctx context.Context, in *extractors.Input) (*provider.Sample, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	return provider.Pictures(ctx, p.run, p.load, in, p.frames)
}

// pictureData is the data every picture analysis has.
func pictureData(s *provider.Sample, source string) map[string]any {
	return map[string]any{"source": source, "frames": len(s.Frames), "frames_source": s.Source}
}

// pictureFields are the fields of pictureData.
var pictureFields = []extractors.Field{
	{Path: "source", Type: extractors.TypeString, Doc: "the service that answered (its words), else the provider's host"},
	{Path: "frames", Type: extractors.TypeNumber, Doc: "pictures sent: 1 for a picture, frames for a video"},
	{Path: "frames_source", Type: extractors.TypeString, Doc: "image, video_main_frames (that extractor's frames) or sampled (frames taken here)"},
}

// maxTime bounds the times of a video's findings (0: no bound).
func maxTime(s *provider.Sample) float64 {
	if !s.Video() || s.Duration <= 0 {
		return 0
	}
	return s.Duration + 1 // the provider's rounding
}

// sourceOf is the service an answer names, else the provider's host.
func sourceOf(answered string, c *provider.Client) string {
	if s := provider.Source(answered); s != "" {
		return s
	}
	return c.Host()
}

// names counts findings by name (case folded): the pictures each was seen
// in and its highest confidence, most seen first.
type names struct {
	order []string
	by    map[string]*nameCount
}

type nameCount struct {
	name  string
	times map[float64]bool
	conf  float64
}

// add counts a finding of name at time t (nil: the picture item).
func (n *names) add(name string, conf float64, t *float64) {
	key := strings.ToLower(strings.TrimSpace(name))
	if n.by == nil {
		n.by = map[string]*nameCount{}
	}
	c, ok := n.by[key]
	if !ok {
		c = &nameCount{name: name, times: map[float64]bool{}}
		n.by[key] = c
		n.order = append(n.order, key)
	}
	at := -1.0
	if t != nil {
		at = *t
	}
	c.times[at] = true
	c.conf = math.Max(c.conf, conf)
}

// list is the names as stored: {name, appearances, confidence}.
func (n *names) list() []any {
	keys := append([]string(nil), n.order...)
	sort.SliceStable(keys, func(i, j int) bool { return len(n.by[keys[i]].times) > len(n.by[keys[j]].times) })
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		c := n.by[k]
		out = append(out, map[string]any{"name": c.name, "appearances": len(c.times), "confidence": c.conf})
	}
	return out
}

// segments gathers the findings of a video by time: one segment a time.
type segments struct {
	at   map[float64]int
	list []extractors.Segment
}

// of returns the segment at t, made when new; nil past MaxSegments.
func (s *segments) of(t float64) *extractors.SegmentSummary {
	if s.at == nil {
		s.at = map[float64]int{}
	}
	i, ok := s.at[t]
	if !ok {
		if len(s.list) >= extractors.MaxSegments {
			return nil
		}
		i = len(s.list)
		s.at[t] = i
		s.list = append(s.list, extractors.Segment{Time: t})
	}
	return &s.list[i].Summary
}

// sorted is the segments in time order.
func (s *segments) sorted() []extractors.Segment {
	sort.SliceStable(s.list, func(i, j int) bool { return s.list[i].Time < s.list[j].Time })
	return s.list
}

// timeOf is when a label was seen: its time, else the start of its range.
func timeOf(l provider.Label) *float64 {
	if l.Time != nil {
		return l.Time
	}
	return l.Start
}

func confOf(c *float64) float64 {
	if c == nil {
		return 0
	}
	return *c
}
