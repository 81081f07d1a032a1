package ocr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "tesseract",
		DisplayName:    "Text Recognition (OCR)",
		Family:         extractors.FamilyText,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"tesseract"},
		// document_pages renders the pages of a PDF, video_main_frames
		// keeps the frames of a video: read here when they ran.
		After:    []string{"document_pages", "pdf", "video_main_frames"},
		Accept:   extractors.AcceptMIME(append([]string{"application/pdf", "video/", "application/mxf"}, pictureTypes...), append(append([]string{"pdf"}, pictureExts...), videoExts...)...),
		Timeout:  time.Hour,
		Settings: settings,
		Fields: []extractors.Field{
			{Path: "text", Type: extractors.TypeText, Doc: "the text read, at most 256 KiB: lines as read, a blank line between blocks, pages separated by form feeds, a video's frames with different text separated by blank lines"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when more text was read than kept"},
			{Path: "words", Type: extractors.TypeNumber, Doc: "words kept (confidence at least 40, 60 in video frames)"},
			{Path: "confidence", Type: extractors.TypeNumber, Doc: "mean confidence of the words kept, 0 to 100"},
			{Path: "languages", Type: extractors.TypeString, Doc: "tesseract languages read with (TESSERACT_LANGUAGES)"},
			{Path: "source", Type: extractors.TypeString, Doc: "what was read: image, document_pages or video_frames"},
			{Path: "images", Type: extractors.TypeNumber, Doc: "pictures read: 1 for an image, pages or frames"},
			{Path: "images_skipped", Type: extractors.TypeNumber, Doc: "pages or frames not read: beyond TESSERACT_MAX_IMAGES, or pages with a text layer"},
			{Path: "images_failed", Type: extractors.TypeNumber, Doc: "pages or frames tesseract could not read"},
			{Path: "width", Type: extractors.TypeNumber, Doc: "pixels of the image read"},
			{Path: "height", Type: extractors.TypeNumber, Doc: "pixels of the image read"},
			{Path: "pages.page", Type: extractors.TypeNumber, Doc: "page number, from 1"},
			{Path: "pages.words", Type: extractors.TypeNumber, Doc: "words kept on the page"},
			{Path: "pages.confidence", Type: extractors.TypeNumber, Doc: "mean confidence of the page's words, 0 to 100"},
			{Path: "frames_source", Type: extractors.TypeString, Doc: "where the frames came from: video_main_frames, or sampled (every 2 s in the first and last minute, evenly between)"},
			{Path: "frame_interval", Type: extractors.TypeNumber, Doc: "seconds between regular frames: times found on frames are exact to it"},
			{Path: "analysed_duration", Type: extractors.TypeNumber, Doc: "seconds of video the frames cover"},
			{Path: "frames.time", Type: extractors.TypeNumber, Doc: "seconds from the start of the video"},
			{Path: "frames.text", Type: extractors.TypeText, Doc: "text read in the frame (at most 1 KiB; absent when none)"},
			{Path: "frames.words", Type: extractors.TypeNumber, Doc: "words kept in the frame"},
			{Path: "frames.lines", Type: extractors.TypeNumber, Doc: "lines of text in the frame"},
			{Path: "frames.confidence", Type: extractors.TypeNumber, Doc: "mean confidence of the frame's words, 0 to 100"},
			{Path: "frames.has_text", Type: extractors.TypeBool, Doc: "the frame shows text: its kept words hold at least 4 letters or digits"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			e, err := newEngine(env)
			if err != nil {
				return nil, err
			}
			return &tesseract{e: e}, nil
		},
	})
}

// pictureTypes are the picture formats read (those both Go's DecodeConfig
// and tesseract's leptonica read); other pictures (SVG, HEIC, camera raw)
// are not offered to tesseract at all.
var (
	pictureTypes = []string{"image/png", "image/jpeg", "image/gif", "image/bmp", "image/x-ms-bmp", "image/tiff", "image/webp"}
	pictureExts  = []string{"png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp"}
)

// videoExts are extensions of video files whose MIME type mime_type does
// not call video/ (raw streams, broadcast containers).
var videoExts = []string{"mxf", "y4m", "h264", "264", "h265", "265", "hevc", "ivf", "nut", "dv", "m2v", "m2ts", "mts", "ts", "vob"}

// tesseract reads the text of pictures, of the pages document_pages
// rendered and of the frames of videos.
type tesseract struct{ e *engine }

var _ extractors.Extractor = (*tesseract)(nil)

func (x *tesseract) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	switch kindOf(in) {
	case kindPDF:
		return x.pages(ctx, in)
	case kindVideo:
		return x.video(ctx, in)
	}
	return x.image(ctx, in)
}

const (
	kindImage = iota
	kindPDF
	kindVideo
)

// kindOf judges a file by its detected type, or by its name when the type
// is unknown; anything else is offered to the picture check.
func kindOf(in *extractors.Input) int {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(in.Name)), ".")
	switch {
	case strings.HasPrefix(in.MIME, "image/"):
		return kindImage
	case in.MIME == "application/pdf":
		return kindPDF
	case strings.HasPrefix(in.MIME, "video/") || in.MIME == "application/mxf":
		return kindVideo
	case ext == "pdf":
		return kindPDF
	case slices.Contains(videoExts, ext) || slices.Contains([]string{"mp4", "mov", "mkv", "avi", "webm", "mpg", "mpeg", "wmv", "flv", "m4v", "3gp"}, ext):
		return kindVideo
	}
	return kindImage
}

// image reads one picture.
func (x *tesseract) image(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	w, h, _, err := imageSize(in.Path)
	if err != nil {
		return nil, err
	}
	var r reading
	rec, err := x.e.read(ctx, in.Path)
	switch {
	case errors.Is(err, errTooSmall):
	case err != nil:
		return nil, err
	default:
		r = summarize(rec, textConfidence)
	}
	text := newTextBuilder(maxText)
	text.add("", r.Text)
	data := x.common("image", text, r.Words, r.Confidence)
	data["images"] = 1
	data["width"], data["height"] = w, h
	return &extractors.Result{Data: data}, nil
}

func (x *tesseract) common(source string, text *textBuilder, words int, conf float64) map[string]any {
	return map[string]any{
		"source":         source,
		"text":           text.String(),
		"text_truncated": text.truncated,
		"words":          words,
		"confidence":     conf,
		"languages":      slices.Clone(x.e.languages),
	}
}

// documentPages is the part of document_pages' data read here.
type documentPages struct {
	Pages []struct {
		Page int    `json:"page"`
		Path string `json:"path"`
	} `json:"pages"`
}

// pdfFacts is the part of pdf's data that says which pages have text.
type pdfFacts struct {
	Scanned *bool `json:"scanned"`
	Pages   []struct {
		Page       int  `json:"page"`
		Characters *int `json:"characters"`
	} `json:"pages"`
}

// textLayerChars: a page whose text layer holds this many non-space
// characters is not read again (pdf reads it; the same rule as pdf's scan
// detection).
const textLayerChars = 32

// pages reads the pages document_pages rendered, those without a text
// layer of their own when pdf says which.
func (x *tesseract) pages(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	raw, ok := in.Prior["document_pages"]
	if !ok {
		return nil, fmt.Errorf("a PDF is read from the pages document_pages renders, which did not run: %w", extractors.ErrUnsupported)
	}
	var dp documentPages
	if err := json.Unmarshal(raw, &dp); err != nil {
		return nil, fmt.Errorf("document_pages data: %w", err)
	}
	hasText := pagesWithText(in.Prior["pdf"])
	dir := in.ArtifactsOf("document_pages")
	var paths []string
	var numbers []int
	skipped := 0
	for _, p := range dp.Pages {
		rel := filepath.FromSlash(p.Path)
		if !filepath.IsLocal(rel) || p.Page < 1 {
			return nil, fmt.Errorf("document_pages data: page %d at %q", p.Page, clip(p.Path, 60))
		}
		if hasText(p.Page) || len(paths) == x.e.maxImages {
			skipped++
			continue
		}
		paths = append(paths, filepath.Join(dir, rel))
		numbers = append(numbers, p.Page)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no page to read: every page has a text layer, or none was rendered: %w", extractors.ErrUnsupported)
	}
	rs, errs, err := x.e.readAll(ctx, paths, textConfidence)
	if err != nil {
		return nil, err
	}
	text := newTextBuilder(maxText)
	var list []any
	words, failed, confSum := 0, 0, 0.0
	var firstErr error
	for i, r := range rs {
		if errs[i] != nil {
			failed++
			if firstErr == nil {
				firstErr = fmt.Errorf("page %d: %w", numbers[i], errs[i])
			}
			continue
		}
		text.add("\f", r.Text)
		words += r.Words
		confSum += r.Confidence * float64(r.Words)
		list = append(list, map[string]any{"page": numbers[i], "words": r.Words, "confidence": r.Confidence})
	}
	if failed == len(rs) {
		return nil, firstErr
	}
	conf := 0.0
	if words > 0 {
		conf = round1(confSum / float64(words))
	}
	data := x.common("document_pages", text, words, conf)
	data["images"], data["images_skipped"], data["images_failed"] = len(list), skipped, failed
	data["pages"] = list
	return &extractors.Result{Data: data}, nil
}

// pagesWithText says, from pdf's data, which pages have a text layer; when
// pdf did not run, or lists no pages, every page is read unless pdf found
// the document is not a scan.
func pagesWithText(raw json.RawMessage) func(page int) bool {
	var f pdfFacts
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil {
		return func(int) bool { return false }
	}
	chars := map[int]int{}
	for _, p := range f.Pages {
		if p.Characters != nil {
			chars[p.Page] = *p.Characters
		}
	}
	notScan := f.Scanned != nil && !*f.Scanned
	return func(page int) bool {
		if n, ok := chars[page]; ok {
			return n >= textLayerChars
		}
		return notScan
	}
}

// video reads the frames of a video; frames with text become segments.
func (x *tesseract) video(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	vr, err := x.e.readVideo(ctx, in)
	if err != nil {
		return nil, err
	}
	text := newTextBuilder(maxText)
	res := &extractors.Result{}
	frames := make([]any, 0, len(vr.Frames))
	words, confSum, last := 0, 0.0, ""
	for _, f := range vr.Frames {
		d := map[string]any{"time": round3(f.Time), "words": f.Words, "lines": f.Lines, "confidence": f.Confidence, "has_text": f.HasText}
		if f.Text != "" {
			d["text"] = doctext.Cut(f.Text, maxFrameText)
		}
		frames = append(frames, d)
		if !f.HasText {
			last = ""
			continue
		}
		if f.Text != last {
			text.add("\n\n", f.Text)
			words += f.Words
			confSum += f.Confidence * float64(f.Words)
		}
		last = f.Text
		res.Segments = append(res.Segments, extractors.Segment{Time: f.Time, Summary: extractors.SegmentSummary{
			OCR: []extractors.SegmentText{{Text: doctext.Cut(f.Text, maxFrameText), Source: "tesseract"}}}})
	}
	conf := 0.0
	if words > 0 {
		conf = round1(confSum / float64(words))
	}
	data := x.common("video_frames", text, words, conf)
	data["frames_source"] = vr.Source
	data["frame_interval"] = round3(vr.Interval)
	data["analysed_duration"] = round3(vr.Duration)
	data["images"], data["images_skipped"], data["images_failed"] = len(vr.Frames), vr.Skipped, vr.Failed
	data["frames"] = frames
	res.Data = data
	return res, nil
}
