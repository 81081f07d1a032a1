package extractors

import (
	"fmt"
	"math"
)

// Segment is one analysed moment of a video as an extractor reports it. The
// moments of every extractor of an item are merged by time (to the
// millisecond): one frame analysed for faces and for text is one Segment
// record (GET /api/data/segments/{id}).
type Segment struct {
	// Time in seconds from the start of the video.
	Time float64 `json:"time"`
	// Thumbnail is the frame's image, an artifact of the same extractor
	// (Path relative to Input.ArtifactDir); nil when it has none.
	Thumbnail *Thumbnail     `json:"thumbnail,omitempty"`
	Summary   SegmentSummary `json:"summary"`
}

// Thumbnail is an image artifact shown for an item, a segment or a
// compilation entry: Type is "image" or "sprite".
type Thumbnail struct {
	Path   string `json:"path"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Type   string `json:"type"`
}

// SegmentSummary is the enrichment data of a segment (the reference's
// summary parts).
type SegmentSummary struct {
	Tags         []SegmentTag         `json:"tags,omitempty"`
	People       []SegmentPerson      `json:"people,omitempty"`
	Description  *SegmentDescription  `json:"description,omitempty"`
	Descriptions []SegmentDescription `json:"descriptions,omitempty"`
	Logos        []SegmentLogo        `json:"logos,omitempty"`
	// Locations is a GeoJSON feature collection.
	Locations map[string]any `json:"locations,omitempty"`
	OCR       []SegmentText  `json:"ocr,omitempty"`
	NSFW      *SegmentNSFW   `json:"nsfw,omitempty"`
	// Transcript is what the item's captions (subtitle tracks, caption
	// files, speech to text, uploads) say around the segment's time, one
	// entry per caption. Extractors do not report it: the search index
	// links the captions to the segments by time when it builds them
	// (search.BuildSegments).
	Transcript []SegmentTranscript `json:"transcript,omitempty"`
}

// Merge adds another extractor's view of the same moment. Lists append; of
// single values the most confident (or first) is kept.
func (s *SegmentSummary) Merge(o SegmentSummary) {
	s.Tags = append(s.Tags, o.Tags...)
	s.People = append(s.People, o.People...)
	s.Descriptions = append(s.Descriptions, o.Descriptions...)
	s.Logos = append(s.Logos, o.Logos...)
	s.OCR = append(s.OCR, o.OCR...)
	s.Transcript = append(s.Transcript, o.Transcript...)
	if o.Description != nil && (s.Description == nil || o.Description.Confidence > s.Description.Confidence) {
		s.Description = o.Description
	}
	if o.NSFW != nil && (s.NSFW == nil || o.NSFW.NSFWScore > s.NSFW.NSFWScore) {
		s.NSFW = o.NSFW
	}
	if s.Locations == nil {
		s.Locations = o.Locations
	}
}

// SegmentTag is a label found in the frame.
type SegmentTag struct {
	Name       string  `json:"name"`
	Confidence float64 `json:"confidence"` // 0 = unknown
	Source     string  `json:"source,omitempty"`
}

// SegmentPerson is a face found in the frame.
type SegmentPerson struct {
	ID             string         `json:"id,omitempty"`
	Name           string         `json:"name,omitempty"` // omitted when unknown
	FaceAttributes map[string]any `json:"face_attributes,omitempty"`
	FaceLandmarks  map[string]any `json:"face_landmarks,omitempty"`
	FaceRectangle  *Rectangle     `json:"face_rectangle,omitempty"`
	ThumbnailPath  string         `json:"thumbnail_path,omitempty"`
	Source         string         `json:"source,omitempty"`
}

// Rectangle is a box in pixels.
type Rectangle struct {
	Top    float64 `json:"top"`
	Left   float64 `json:"left"`
	Height float64 `json:"height"`
	Width  float64 `json:"width"`
}

// SegmentDescription is a caption of the frame.
type SegmentDescription struct {
	Text       string  `json:"text"`
	Source     string  `json:"source,omitempty"`
	Confidence float64 `json:"confidence"`
}

// SegmentLogo is a logo found in the frame.
type SegmentLogo struct {
	Name              string      `json:"name"`
	Size              string      `json:"size,omitempty"` // tiny, small, medium, large
	LogoQuadrilateral [][]float64 `json:"logoquadrilateral,omitempty"`
	Confidence        float64     `json:"confidence"`
	Source            string      `json:"source,omitempty"`
}

// SegmentText is text read in the frame (OCR) or heard at that moment.
type SegmentText struct {
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
}

// SegmentTranscript is the text of one caption of the item spoken or shown
// around a segment's time: its cues overlapping the segment's stretch,
// one a line, in time order.
type SegmentTranscript struct {
	Text string `json:"text"`
	// Source and Language are the caption's (see Caption): "speech",
	// "embedded", "sidecar", "file" or "uploaded"; a language code or
	// absent when unknown.
	Source   string `json:"source"`
	Language string `json:"language,omitempty"`
	// Start and End span the cues whose text this is, in seconds from the
	// start of the item (Start may precede the segment's time: a cue
	// already showing when the segment begins).
	Start float64 `json:"start_at"`
	End   float64 `json:"end_at"`
}

// SegmentNSFW is the adult-content verdict of the frame.
type SegmentNSFW struct {
	Source    string  `json:"source,omitempty"`
	NSFW      bool    `json:"nsfw"`
	NSFWScore float64 `json:"nsfw_score"` // 0 safe .. 1 unsafe
	// Categories are the scores (0..1) of a categorising classifier by
	// category: porn, sexy, hentai, drawing, neutral (the classes of
	// nsfwjs). The adult histograms per category read them
	// (GET /api/data/items/{id}/adult/{category}).
	Categories map[string]float64 `json:"categories,omitempty"`
}

// Caption is a timed transcript of an item: a subtitle track, a sidecar
// caption file, or speech recognised in its audio.
type Caption struct {
	// Source says where it came from: "embedded" (a track of the file),
	// "sidecar" (a caption file next to the media), "file" (the item is a
	// caption file), "speech" (speech to text), "uploaded".
	Source string `json:"source"`
	// Language is a BCP 47 / ISO 639 code when known ("en", "eng"), else "".
	Language string `json:"language"`
	// Confidence of the language (0 = unknown).
	Confidence float64 `json:"confidence"`
	// Format of the original ("srt", "vtt", "scc", "ass", "mov_text", ...).
	Format string `json:"format"`
	// Label tells captions of one extractor apart (a track index, a file
	// name); empty when there is one.
	Label string `json:"label,omitempty"`
	// Cues in time order.
	Cues []Cue `json:"cues"`
}

// Cue is one timed line of a caption, times in seconds.
type Cue struct {
	Start float64 `json:"start_at"`
	End   float64 `json:"end_at"`
	Text  string  `json:"text"`
}

// Limits on what one extractor may report, so that a hostile file cannot
// make a harvest write without end.
const (
	MaxSegments = 20000
	MaxCaptions = 64
	MaxCues     = 50000
)

// checkMedia refuses segments and captions the worker could not store.
// MaxFaces bounds the face descriptors of one result; maxDescriptorBytes
// one descriptor (1028 bytes as vendor_faces stores them).
const (
	MaxFaces           = 2000
	maxDescriptorBytes = 8 << 10
)

func checkMedia(name string, res *Result) error {
	if len(res.Segments) > MaxSegments {
		return fmt.Errorf("extractor %s: %d segments, at most %d", name, len(res.Segments), MaxSegments)
	}
	if len(res.Captions) > MaxCaptions {
		return fmt.Errorf("extractor %s: %d captions, at most %d", name, len(res.Captions), MaxCaptions)
	}
	for _, s := range res.Segments {
		if math.IsNaN(s.Time) || math.IsInf(s.Time, 0) || s.Time < 0 {
			return fmt.Errorf("extractor %s: segment time %v", name, s.Time)
		}
		if s.Thumbnail != nil {
			if err := checkArtifactPath(name, s.Thumbnail.Path); err != nil {
				return err
			}
		}
		for _, p := range s.Summary.People {
			if p.ThumbnailPath != "" {
				if err := checkArtifactPath(name, p.ThumbnailPath); err != nil {
					return err
				}
			}
		}
	}
	if len(res.Faces) > MaxFaces {
		return fmt.Errorf("extractor %s: %d face descriptors, at most %d", name, len(res.Faces), MaxFaces)
	}
	for _, f := range res.Faces {
		switch {
		case f.Face < 0 || len(f.Descriptor) == 0 || len(f.Descriptor) > maxDescriptorBytes || len(f.Model) > 100 || len(f.PersonID) > 100:
			return fmt.Errorf("extractor %s: face descriptor %d of %d bytes", name, f.Face, len(f.Descriptor))
		case f.Time != nil && (math.IsNaN(*f.Time) || math.IsInf(*f.Time, 0) || *f.Time < 0):
			return fmt.Errorf("extractor %s: face time %v", name, *f.Time)
		case f.Thumbnail != "":
			if err := checkArtifactPath(name, f.Thumbnail); err != nil {
				return err
			}
		}
	}
	for _, c := range res.Captions {
		if len(c.Cues) > MaxCues {
			return fmt.Errorf("extractor %s: caption with %d cues, at most %d", name, len(c.Cues), MaxCues)
		}
		for _, q := range c.Cues {
			if math.IsNaN(q.Start) || math.IsNaN(q.End) || math.IsInf(q.Start, 0) || math.IsInf(q.End, 0) || q.Start < 0 || q.End < q.Start {
				return fmt.Errorf("extractor %s: caption cue %v..%v", name, q.Start, q.End)
			}
		}
	}
	return nil
}
