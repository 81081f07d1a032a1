package recognition

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// tags is image and video recognition by a provider: the labels (objects,
// scenes, activities) and the people it recognises by name in a picture
// or in frames of a video. The reference names such extractors by their
// provider's brand and omits them; "tags" is the name the search layer
// counts tag hits under, and what the item summary calls them.
func init() {
	settings := append(provider.Settings("RECOGNITION_API", "recognition"), pictureSettings("RECOGNITION", "recognition")...)
	extractors.MustRegister(extractors.Info{
		Name:        "tags",
		DisplayName: "Recognition and Tags",
		Family:      extractors.FamilyRecognition,
		Version:     "1.0.0",
		Implemented: true,
		Tools:       []string{"ffmpeg", "ffprobe"},
		Provider:    "recognition",
		After:       []string{"video_main_frames"},
		Accept:      images.AcceptPictures,
		Timeout:     pictureTimeout,
		Settings:    settings,
		Fields: append([]extractors.Field{
			{Path: "tags.name", Type: extractors.TypeString, Doc: "a label the provider gave (object, scene, activity), as first written"},
			{Path: "tags.appearances", Type: extractors.TypeNumber, Doc: "pictures it was seen in"},
			{Path: "tags.confidence", Type: extractors.TypeNumber, Doc: "its highest confidence, 0..1 (0: not given)"},
			{Path: "labels.name", Type: extractors.TypeString, Doc: "each label as answered, the most confident first (at most 500)"},
			{Path: "labels.confidence", Type: extractors.TypeNumber, Doc: "0..1 (0: not given)"},
			{Path: "labels.time", Type: extractors.TypeNumber, Doc: "time of the frame it was seen in, seconds (videos)"},
			{Path: "labels.start", Type: extractors.TypeNumber, Doc: "seconds, when the provider gives a range"},
			{Path: "labels.end", Type: extractors.TypeNumber, Doc: "seconds, when the provider gives a range"},
			{Path: "people.name", Type: extractors.TypeString, Doc: "a person the provider recognised by name"},
			{Path: "people.appearances", Type: extractors.TypeNumber, Doc: "pictures the person was seen in"},
			{Path: "people.confidence", Type: extractors.TypeNumber, Doc: "highest confidence, 0..1 (0: not given)"},
		}, pictureFields...),
		New: func(env extractors.Env) (extractors.Extractor, error) {
			p, err := newPictureCommon(env, "RECOGNITION")
			if err != nil {
				return nil, err
			}
			return &recognition{pictureCommon: p}, nil
		},
	})
}

type recognition struct{ pictureCommon }

var _ extractors.Extractor = (*recognition)(nil)

// maxRecognitionEntries refuses an answer too long to be about the
// pictures sent.
const maxRecognitionEntries = 20 * provider.MaxLabels

func (x *recognition) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	s, err := x.sample(ctx, in)
	if err != nil {
		return nil, err
	}
	var all provider.Recognition
	err = provider.CallMedia(ctx, x.client, "recognition", s.Media(), func(_ []provider.Media, a provider.Recognition) error {
		if all.Size()+a.Size() > maxRecognitionEntries {
			return fmt.Errorf("answer of more than %d labels and people", maxRecognitionEntries)
		}
		all.Labels, all.People = append(all.Labels, a.Labels...), append(all.People, a.People...)
		if all.Source == "" {
			all.Source = a.Source
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	labels, people := all.Clean(maxTime(s))
	source := sourceOf(all.Source, x.client)
	var tags, persons names
	var segs segments
	labelList := make([]any, 0, len(labels))
	for _, l := range labels {
		labelList = append(labelList, l.Data())
		t := timeOf(l)
		tags.add(l.Name, confOf(l.Confidence), t)
		if s.Video() && t != nil {
			if sum := segs.of(*t); sum != nil {
				sum.Tags = append(sum.Tags, extractors.SegmentTag{Name: l.Name, Confidence: confOf(l.Confidence), Source: source})
			}
		}
	}
	for _, p := range people {
		t := timeOf(p)
		persons.add(p.Name, confOf(p.Confidence), t)
		if s.Video() && t != nil {
			if sum := segs.of(*t); sum != nil {
				sum.People = append(sum.People, extractors.SegmentPerson{Name: p.Name, Source: source,
					FaceAttributes: map[string]any{"confidence": confOf(p.Confidence)}})
			}
		}
	}
	data := pictureData(s, source)
	data["labels"], data["tags"], data["people"] = labelList, tags.list(), persons.list()
	return &extractors.Result{Data: data, Segments: segs.sorted()}, nil
}
