package recognition

import (
	"context"
	"fmt"
	"math"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// logos is logo detection by a provider, in a picture or in frames of a
// video: the gmlogos of the original product's clients. Its provider is
// the logo recognition provider that logo training (POST
// /api/data/train/logos) teaches: the same LOGO_PROVIDER_URL and
// LOGO_PROVIDER_KEY, the task appended to the URL as for every provider
// (POST {LOGO_PROVIDER_URL}/logos), so that the logos trained there are
// the logos found here.
func init() {
	settings := append(provider.Settings("LOGO_PROVIDER", "logo recognition"), pictureSettings("LOGO", "logo detection")...)
	extractors.MustRegister(extractors.Info{
		Name:        "logos",
		DisplayName: "Logo Detection",
		Family:      extractors.FamilyRecognition,
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"ffmpeg", "ffprobe"},
		Provider:    "logo",
		After:       []string{"video_main_frames"},
		Accept:      images.AcceptPictures,
		Timeout:     pictureTimeout,
		Settings:    settings,
		Fields: append([]extractors.Field{
			{Path: "logos.name", Type: extractors.TypeString, Doc: "a logo found (its brand), as first written"},
			{Path: "logos.appearances", Type: extractors.TypeNumber, Doc: "pictures it was found in"},
			{Path: "logos.confidence", Type: extractors.TypeNumber, Doc: "its highest confidence, 0..1 (0: not given)"},
			{Path: "detections.name", Type: extractors.TypeString, Doc: "each logo found, the most confident first (at most 500)"},
			{Path: "detections.confidence", Type: extractors.TypeNumber, Doc: "0..1 (0: not given)"},
			{Path: "detections.time", Type: extractors.TypeNumber, Doc: "time of the frame it was found in, seconds (videos)"},
			{Path: "detections.size", Type: extractors.TypeString, Doc: "share of the picture it covers: tiny (under 1%), small (under 5%), medium (under 20%), large"},
			{Path: "detections.box.left", Type: extractors.TypeNumber, Doc: "where it is, in fractions (0..1) of the picture's width from its left edge"},
			{Path: "detections.box.top", Type: extractors.TypeNumber, Doc: "in fractions of the picture's height from its top edge"},
			{Path: "detections.box.width", Type: extractors.TypeNumber, Doc: "in fractions of the picture's width"},
			{Path: "detections.box.height", Type: extractors.TypeNumber, Doc: "in fractions of the picture's height"},
		}, pictureFields...),
		New: func(env extractors.Env) (extractors.Extractor, error) {
			p, err := newPictureCommon(env, "LOGO")
			if err != nil {
				return nil, err
			}
			return &logoDetection{pictureCommon: p}, nil
		},
	})
}

type logoDetection struct{ pictureCommon }

var _ extractors.Extractor = (*logoDetection)(nil)

// maxLogoEntries refuses an answer too long to be about the pictures sent.
const maxLogoEntries = 20 * provider.MaxLogos

func (x *logoDetection) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	s, err := x.sample(ctx, in)
	if err != nil {
		return nil, err
	}
	var all provider.LogoAnswer
	err = provider.CallMedia(ctx, x.client, "logos", s.Media(), func(_ []provider.Media, a provider.LogoAnswer) error {
		if len(all.Logos)+len(a.Logos) > maxLogoEntries {
			return fmt.Errorf("answer of more than %d logos", maxLogoEntries)
		}
		all.Logos = append(all.Logos, a.Logos...)
		if all.Source == "" {
			all.Source = a.Source
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	found := all.Clean(maxTime(s))
	source := sourceOf(all.Source, x.client)
	var counted names
	var segs segments
	detections := make([]any, 0, len(found))
	for _, l := range found {
		conf := confOf(l.Confidence)
		d := map[string]any{"name": l.Name, "confidence": conf}
		seg := extractors.SegmentLogo{Name: l.Name, Confidence: conf, Source: source}
		if l.Time != nil {
			d["time"] = math.Round(*l.Time*1000) / 1000
		}
		if b := l.Box; b != nil {
			d["size"] = b.Size()
			q := b.Quadrilateral()
			d["box"] = map[string]any{"left": q[0][0], "top": q[0][1], "width": round4(q[1][0] - q[0][0]), "height": round4(q[2][1] - q[0][1])}
			seg.Size, seg.LogoQuadrilateral = b.Size(), q
		}
		detections = append(detections, d)
		counted.add(l.Name, conf, l.Time)
		if s.Video() && l.Time != nil {
			if sum := segs.of(*l.Time); sum != nil {
				sum.Logos = append(sum.Logos, seg)
			}
		}
	}
	data := pictureData(s, source)
	data["detections"], data["logos"] = detections, counted.list()
	return &extractors.Result{Data: data, Segments: segs.sorted()}, nil
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
