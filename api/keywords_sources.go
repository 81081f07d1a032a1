package api

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"sort"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// The texts of an item that keyword hits read, by kind of match:
//
//   - speech: captions of source "speech" (speech to text), with their
//     cues' times;
//   - caption: the other captions (subtitle tracks, caption and sidecar
//     files, uploads), with their cues' times;
//   - ocr: text read in a video's frames (the segments' summary.ocr), at
//     the frames' times; and text tesseract read in a picture or in the
//     pages of a document, which has no time;
//   - text: the text of documents (every extractor that declares a
//     top-level "text" field of type text: pdf, officex, html, email ...),
//     which has no time.
//
// Text that is a copy of one of those is not read twice: speech_to_text's
// own data (its caption is read), tesseract's text of a video (its frames
// are read), and the text of analyses that run after tesseract and re-read
// its frames (credits).

// Match types.
const (
	matchSpeech  = "speech"
	matchCaption = "caption"
	matchOCR     = "ocr"
	matchText    = "text"
)

// matchTypeOrder orders the matches of a group.
var matchTypeOrder = map[string]int{matchSpeech: 0, matchCaption: 1, matchOCR: 2, matchText: 3}

// keywordMergeGap: hits of a word at most this many seconds apart make one
// timeline entry.
const keywordMergeGap = 3.0

// textSpan is one piece of text and the time it covers (0, 0 when the
// text has no time).
type textSpan struct {
	start, end float64
	text       string
}

// textSource is one text of an item.
type textSource struct {
	kind      string // matchSpeech ...
	source    string // the extractor, or "uploaded"
	captionID string
	language  string
	timed     bool
	gap       float64 // merge gap of timed sources
	spans     []textSpan
}

// ocrExtractor reads pictures, pages and frames; its data's source says
// which ("video_frames": the frames' text is in its segments).
const ocrExtractor = "tesseract"

// speechExtractor's transcript is its caption (source speech).
const speechExtractor = "speech_to_text"

// itemTextSources gathers the texts of an item, timed ones in time order.
func (s *Server) itemTextSources(ctx context.Context, it models.Item, meta map[string]json.RawMessage) ([]textSource, error) {
	var out []textSource
	caps, err := s.captionSources(ctx, it.ID)
	if err != nil {
		return nil, err
	}
	out = append(out, caps...)
	frames, err := s.frameTextSources(ctx, it.ID, meta)
	if err != nil {
		return nil, err
	}
	out = append(out, frames...)
	out = append(out, s.untimedTextSources(meta, len(frames) > 0)...)
	for i := range out {
		if out[i].timed {
			sort.SliceStable(out[i].spans, func(a, b int) bool { return out[i].spans[a].start < out[i].spans[b].start })
		}
	}
	return out, nil
}

func (s *Server) captionSources(ctx context.Context, itemID string) ([]textSource, error) {
	rows, err := store.CaptionCues(s.DB.WithContext(ctx), itemID)
	if err != nil {
		return nil, err
	}
	out := make([]textSource, 0, len(rows))
	for _, r := range rows {
		var cues []extractors.Cue
		_ = json.Unmarshal(r.Cues, &cues) // written by the worker or an upload: always a list
		src := textSource{kind: matchCaption, source: r.Extractor, captionID: r.ID, language: r.Language,
			timed: true, gap: keywordMergeGap, spans: make([]textSpan, 0, len(cues))}
		if r.Source == "speech" {
			src.kind = matchSpeech
		}
		if src.source == "" {
			src.source = r.Source // an uploaded caption has no extractor
		}
		for _, q := range cues {
			src.spans = append(src.spans, textSpan{start: q.Start, end: q.End, text: q.Text})
		}
		out = append(out, src)
	}
	return out, nil
}

// frameTextSources reads the text of a video's frames, one source per
// extractor that reported it. A frame stands for the video until the next
// frame read, so hits in frames up to one and a half regular frame
// intervals apart merge (tesseract's frame_interval), and never less than
// keywordMergeGap.
func (s *Server) frameTextSources(ctx context.Context, itemID string, meta map[string]json.RawMessage) ([]textSource, error) {
	rows, err := store.FrameTexts(s.DB.WithContext(ctx), itemID)
	if err != nil {
		return nil, err
	}
	var out []textSource
	for _, r := range rows {
		var texts []extractors.SegmentText
		if json.Unmarshal(r.OCR, &texts) != nil {
			continue
		}
		if len(out) == 0 || out[len(out)-1].source != r.Extractor {
			out = append(out, textSource{kind: matchOCR, source: r.Extractor, timed: true, gap: frameGap(meta[r.Extractor])})
		}
		t := float64(r.TimeMS) / 1000
		src := &out[len(out)-1]
		for _, x := range texts {
			src.spans = append(src.spans, textSpan{start: t, end: t, text: x.Text})
		}
	}
	return out, nil
}

func frameGap(data json.RawMessage) float64 {
	var d struct {
		FrameInterval float64 `json:"frame_interval"`
	}
	_ = json.Unmarshal(data, &d)
	if math.IsNaN(d.FrameInterval) || d.FrameInterval <= 0 {
		return keywordMergeGap
	}
	return max(keywordMergeGap, 1.5*d.FrameInterval)
}

// untimedTextSources are the texts without times: OCR of a picture or of
// document pages, and the documents' text. framesRead says the video's
// frames were read already (tesseract's text is theirs then).
func (s *Server) untimedTextSources(meta map[string]json.RawMessage, framesRead bool) []textSource {
	var out []textSource
	if raw, ok := meta[ocrExtractor]; ok {
		var d struct {
			Text   string `json:"text"`
			Source string `json:"source"`
		}
		if json.Unmarshal(raw, &d) == nil && d.Text != "" && !(framesRead && d.Source == "video_frames") {
			out = append(out, textSource{kind: matchOCR, source: ocrExtractor, spans: []textSpan{{text: d.Text}}})
		}
	}
	for _, name := range documentTextExtractors(s.Extractors) {
		raw, ok := meta[name]
		if !ok {
			continue
		}
		var d struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &d) == nil && d.Text != "" {
			out = append(out, textSource{kind: matchText, source: name, spans: []textSpan{{text: d.Text}}})
		}
	}
	return out
}

// documentTextExtractors are the extractors whose declared top-level
// "text" field (type text) is a document's own text, sorted by name.
func documentTextExtractors(reg *extractors.Registry) []string {
	var out []string
	for _, info := range reg.All() {
		if info.Name == ocrExtractor || info.Name == speechExtractor || slices.Contains(info.After, ocrExtractor) {
			continue
		}
		for _, f := range info.Fields {
			if f.Path == "text" && f.Type == extractors.TypeText {
				out = append(out, info.Name)
				break
			}
		}
	}
	return out
}
