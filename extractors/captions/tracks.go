package captions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// Kinds of subtitle streams.
const (
	kindText    = "text"            // text subtitles: converted to SubRip by ffmpeg
	kindCC      = "closed_captions" // CEA-608 byte pairs: decoded by ffmpeg's cc_dec
	kindBitmap  = "bitmap"          // pictures of text (DVD, DVB, Blu-ray PGS): no text without OCR
	kindTeletx  = "teletext"        // DVB teletext pages
	kindUnknown = "other"
)

// textCodecs are the subtitle codecs ffmpeg decodes to text.
var textCodecs = []string{"subrip", "srt", "ass", "ssa", "mov_text", "webvtt", "text", "microdvd", "subviewer",
	"subviewer1", "sami", "realtext", "jacosub", "mpl2", "pjs", "vplayer", "stl"}

var bitmapCodecs = []string{"dvd_subtitle", "dvb_subtitle", "hdmv_pgs_subtitle", "xsub"}

func kindOf(codec string) string {
	switch {
	case slices.Contains(textCodecs, codec):
		return kindText
	case codec == "eia_608":
		return kindCC
	case slices.Contains(bitmapCodecs, codec):
		return kindBitmap
	case codec == "dvb_teletext":
		return kindTeletx
	}
	return kindUnknown
}

// track is one subtitle stream of a file (or the closed captions carried
// in a video stream) and what was read of it.
type track struct {
	Index           int
	Codec, Kind     string
	Language, Title string
	Default, Forced bool
	HearingImpaired bool
	// Label tells the track's caption apart: the stream index, or
	// "cc:<index>" for the captions inside video stream <index>.
	Label  string
	Parsed *Parsed // nil when not read
	Err    error
}

func tracksOf(p *av.Probe) []*track {
	var out []*track
	for _, s := range p.Subtitles() {
		out = append(out, &track{Index: s.Index, Codec: s.CodecName, Kind: kindOf(s.CodecName),
			Language: languageTag(s.Tags["language"]), Title: doctext.Cut(sanitise(s.Tags["title"]), 200),
			Default: s.Disposition["default"] == 1, Forced: s.Disposition["forced"] == 1,
			HearingImpaired: s.Disposition["hearing_impaired"] == 1, Label: strconv.Itoa(s.Index)})
	}
	return out
}

// captionFormat is the Caption.Format of a codec.
func captionFormat(codec string) string {
	switch codec {
	case "subrip", "srt":
		return "srt"
	case "webvtt":
		return "vtt"
	}
	return codec
}

// maxTrackOutput bounds the SubRip ffmpeg writes for one track (-fs).
const maxTrackOutput = 32 << 20

// embedded is the reading of a file's subtitle streams shared by captions
// and captionsv2 in one harvest: one ffprobe (av.Read) and one ffmpeg pass
// that converts every text and CEA-608 stream to SubRip at once.
type embedded struct {
	tracks []*track
}

func readEmbedded(ctx context.Context, run *extractors.Runner, in *extractors.Input) (*embedded, error) {
	v, err := in.Shared("captions.embedded", func() (any, error) {
		p, err := av.Read(ctx, run, in)
		if err != nil {
			return nil, err
		}
		e := &embedded{tracks: tracksOf(p)}
		var convert []*track
		for _, t := range e.tracks {
			if t.Kind != kindText && t.Kind != kindCC {
				continue
			}
			// One caption per track, and room for the closed captions
			// of a video stream.
			if len(convert) == extractors.MaxCaptions-1 {
				t.Err = fmt.Errorf("more than %d subtitle tracks: not read", extractors.MaxCaptions-1)
				continue
			}
			convert = append(convert, t)
		}
		if len(convert) > 0 {
			if err := convertTracks(ctx, run, in.Path, convert); err != nil {
				return nil, err
			}
		}
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*embedded), nil
}

// convertTracks runs ffmpeg once over the file, writing each track as
// SubRip into a temporary directory (-fs bounds each), and parses them.
// Only subtitle streams are mapped: nothing is decoded but them.
func convertTracks(ctx context.Context, run *extractors.Runner, path string, tracks []*track) error {
	dir, err := os.MkdirTemp("", "captions-*")
	if err != nil {
		return extractors.Transient(fmt.Errorf("temporary directory: %w", err))
	}
	defer os.RemoveAll(dir)
	args := append([]string{"-nostdin", "-y", "-v", "error"}, av.InputArgs(path)...)
	for _, t := range tracks {
		args = append(args, "-map", "0:"+strconv.Itoa(t.Index), "-fs", strconv.Itoa(maxTrackOutput),
			"-f", "srt", "file:"+filepath.Join(dir, strconv.Itoa(t.Index)+".srt"))
	}
	if _, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, MaxOutput: 1 << 20, MaxMemory: 2 << 30}); err != nil {
		if ctx.Err() != nil {
			return extractors.Transient(err)
		}
		for _, t := range tracks {
			t.Err = fmt.Errorf("ffmpeg: %w", err)
		}
		return nil
	}
	for _, t := range tracks {
		b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(t.Index)+".srt"))
		if err != nil {
			t.Err = fmt.Errorf("read converted track: %w", err)
			continue
		}
		if t.Parsed, t.Err = parseFFmpegSRT(b); t.Err == nil {
			t.Parsed.Format = captionFormat(t.Codec)
		}
	}
	return nil
}

// caption is the Caption of a track that was read.
func (t *track) caption() extractors.Caption {
	lang := LanguageOf(t.Language, t.Parsed.Cues)
	return extractors.Caption{Source: "embedded", Language: lang.Code, Confidence: lang.Confidence,
		Format: captionFormat(t.Codec), Label: t.Label, Cues: t.Parsed.Cues}
}

// summary is the data both extractors give: how many tracks were read,
// their languages and formats, and their cues in all.
func summary(tracks []*track) map[string]any {
	langs, formats := []any{}, []any{}
	cues, n := 0, 0
	for _, t := range tracks {
		if t.Parsed == nil {
			continue
		}
		n++
		cues += len(t.Parsed.Cues)
		if t.Language != "" && !slices.Contains(langs, any(t.Language)) {
			langs = append(langs, t.Language)
		}
		if f := captionFormat(t.Codec); !slices.Contains(formats, any(f)) {
			formats = append(formats, f)
		}
	}
	return map[string]any{"tracks": n, "languages": langs, "formats": formats, "cues": cues}
}

// trackErrors joins the errors of tracks that could not be read.
func trackErrors(tracks []*track) error {
	var msgs []string
	for _, t := range tracks {
		if t.Err != nil {
			msgs = append(msgs, fmt.Sprintf("track %s: %v", t.Label, t.Err))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}
