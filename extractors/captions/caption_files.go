package captions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "caption_files",
		DisplayName:    "Caption Files",
		Family:         extractors.FamilyCaptions,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept: func(f extractors.File) bool {
			return isCaptionName(f.Name) || slices.Contains(fileMIMEs, f.MIME) ||
				strings.HasPrefix(f.MIME, "video/") || strings.HasPrefix(f.MIME, "audio/")
		},
		Fields: []extractors.Field{
			{Path: "format", Type: extractors.TypeString, Doc: "format of a caption file item: srt, vtt, ass, ssa, ttml, scc"},
			{Path: "encoding", Type: extractors.TypeString, Doc: "text encoding of the file: utf-8, utf-16le, utf-16be, or a single-byte code page (iso-8859-1, windows-1252, windows-1250, iso-8859-2, windows-1251, koi8-r, windows-1253, iso-8859-7, windows-1254); ascii for SCC"},
			{Path: "language", Type: extractors.TypeString, Doc: "language the file declares or its name gives (en, eng, pt-BR), else the one identified in the words of its cues (ISO 639-1: tr); empty when unknown"},
			{Path: "language_identified", Type: extractors.TypeBool, Doc: "true when language was identified in the words, not declared"},
			{Path: "cues", Type: extractors.TypeNumber, Doc: "number of cues"},
			{Path: "duration", Type: extractors.TypeNumber, Doc: "end of the last cue, seconds"},
			{Path: "skipped", Type: extractors.TypeNumber, Doc: "blocks that were not valid cues and were skipped"},
			{Path: "sidecars.name", Type: extractors.TypeString, Doc: "file name of a caption file next to a media item"},
			{Path: "sidecars.format", Type: extractors.TypeString, Doc: "its format"},
			{Path: "sidecars.language", Type: extractors.TypeString, Doc: "its language, from its name or content, else identified in its words"},
			{Path: "sidecars.language_identified", Type: extractors.TypeBool, Doc: "true when its language was identified in its words"},
			{Path: "sidecars.cues", Type: extractors.TypeNumber, Doc: "its number of cues"},
			{Path: "sidecars.error", Type: extractors.TypeString, Doc: "why it could not be read (it has no caption then)"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) { return &captionFiles{run: env.Runner}, nil },
	})
}

var _ extractors.Extractor = (*captionFiles)(nil)

// captionFiles reads caption files: an item that is one (movie.srt) gives
// one Caption of source "file"; a media item (clip.mp4) gives one Caption
// of source "sidecar" per caption file beside it named like it
// (clip.srt, clip.en.vtt, clip.eng.forced.srt), labelled with that file's
// name, its language from the name or the content. Sidecars are found
// only in local storage (Input.Siblings); elsewhere a media item has none.
type captionFiles struct {
	run *extractors.Runner
}

func (x *captionFiles) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	if isCaptionName(in.Name) || slices.Contains(fileMIMEs, in.MIME) {
		return x.file(ctx, in)
	}
	return x.sidecars(ctx, in)
}

func (x *captionFiles) file(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	b := in.Content
	if b == nil {
		var err error
		if b, err = readCapped(in.Path); err != nil {
			return nil, err
		}
	}
	p, err := Parse(ctx, x.run, in.Name, b)
	if err != nil {
		return nil, err
	}
	declared := p.Language
	if declared == "" {
		declared = nameLanguage(in.Name)
	}
	lang := LanguageOf(declared, p.Cues)
	data := map[string]any{"format": p.Format, "encoding": p.Encoding, "language": lang.Code,
		"language_identified": lang.Identified, "cues": len(p.Cues), "duration": p.Duration(), "skipped": p.Skipped}
	res := &extractors.Result{Data: data}
	if len(p.Cues) > 0 {
		res.Captions = []extractors.Caption{{Source: "file", Language: lang.Code, Confidence: lang.Confidence,
			Format: p.Format, Cues: p.Cues}}
	}
	return res, nil
}

func (x *captionFiles) sidecars(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if in.Siblings == nil {
		return nil, extractors.ErrUnsupported
	}
	sibs, err := in.Siblings(ctx, FileExts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, extractors.Transient(err)
		}
		return nil, extractors.Transient(fmt.Errorf("list sidecars: %w", err))
	}
	res := &extractors.Result{}
	var list []any
	for _, sb := range sibs {
		lang, ok := sidecarLanguage(in.Name, sb.Name)
		if !ok {
			continue // another media file's (clip.part2.srt beside clip.mp4)
		}
		entry := map[string]any{"name": sb.Name}
		list = append(list, entry)
		p, err := x.sidecar(ctx, sb)
		if err != nil {
			if ctx.Err() != nil {
				return nil, extractors.Transient(err)
			}
			entry["error"] = err.Error()
			continue
		}
		if lang == "" {
			lang = p.Language
		}
		l := LanguageOf(lang, p.Cues)
		entry["format"], entry["language"], entry["language_identified"], entry["cues"] = p.Format, l.Code, l.Identified, len(p.Cues)
		if len(p.Cues) > 0 {
			res.Captions = append(res.Captions, extractors.Caption{Source: "sidecar", Language: l.Code,
				Confidence: l.Confidence, Format: p.Format, Label: sb.Name, Cues: p.Cues})
		}
	}
	if len(list) == 0 {
		return nil, extractors.ErrUnsupported
	}
	res.Data = map[string]any{"sidecars": list}
	return res, nil
}

func (x *captionFiles) sidecar(ctx context.Context, sb extractors.Sibling) (*Parsed, error) {
	if sb.Size > MaxFileSize {
		return nil, fmt.Errorf("%d bytes, larger than %d", sb.Size, MaxFileSize)
	}
	rc, err := sb.Open()
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return Parse(ctx, x.run, sb.Name, b)
}

// readCapped reads a whole caption file, refusing one over MaxFileSize
// before reading it.
func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("open: %w", err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("stat: %w", err))
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("caption file of %d bytes, larger than %d", fi.Size(), MaxFileSize)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("read: %w", err))
	}
	if len(b) > MaxFileSize {
		return nil, errors.New("caption file grew past the size limit while read")
	}
	return b, nil
}
