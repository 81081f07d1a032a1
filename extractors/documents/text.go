package documents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// The text extractor is not in the reference's list of API names: it is
// the plain-text part of the reference's document extractors (a text file
// had no extractor that read its words).
func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "text",
		DisplayName:    "Plain Text",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptText,
		Fields: []extractors.Field{
			{Path: "text", Type: extractors.TypeText, Doc: "the text, as UTF-8, at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the file holds more text than was kept"},
			{Path: "encoding", Type: extractors.TypeString, Doc: "detected encoding: utf-8, utf-16le, utf-16be, or a single-byte code page (iso-8859-1, windows-1252, windows-1250, iso-8859-2, windows-1251, koi8-r, windows-1253, iso-8859-7, windows-1254)"},
			{Path: "bom", Type: extractors.TypeBool, Doc: "true when the file starts with a byte order mark"},
			{Path: "line_count", Type: extractors.TypeNumber, Doc: "lines in the whole file (a last line without a newline counts)"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) { return textExtractor{}, nil },
	})
}

// textExtensions are plain text and source or configuration files that
// mime_type may call application/octet-stream (UTF-16 without a byte order
// mark) or something that is not text/.
var textExtensions = []string{
	"txt", "text", "md", "markdown", "rst", "adoc", "org", "log", "nfo", "tex", "bib",
	"ini", "cfg", "conf", "config", "toml", "yaml", "yml", "properties", "env",
	"c", "h", "cc", "cpp", "cxx", "hpp", "hh", "m", "mm", "cs", "java", "kt", "kts", "scala", "groovy",
	"go", "rs", "swift", "py", "rb", "pl", "pm", "php", "lua", "tcl", "r", "jl", "dart",
	"js", "mjs", "cjs", "ts", "tsx", "jsx", "css", "scss", "less", "sql", "graphql",
	"sh", "bash", "zsh", "fish", "ps1", "bat", "cmd", "mk", "cmake", "gradle", "dockerfile", "proto",
}

// textMIMEs are types that are text whatever mime_type's prefix says.
var textMIMEs = []string{"text/", "application/x-sh", "application/javascript", "application/x-perl",
	"application/x-tcl", "application/x-php", "application/x-python", "application/toml", "application/yaml"}

func acceptText(f extractors.File) bool {
	if takenByOther(f) {
		return false
	}
	return extractors.AcceptMIME(textMIMEs, textExtensions...)(f)
}

// takenByOther reports files another extractor of this package reads (or
// the caption_files extractor, for subtitles): their text comes from it.
func takenByOther(f extractors.File) bool {
	for _, accept := range []func(extractors.File) bool{acceptCSV, acceptJSON, acceptXML, acceptHTML, acceptEmail, acceptFDX} {
		if accept(f) {
			return true
		}
	}
	switch f.Ext {
	case "srt", "vtt", "ass", "ssa", "sub", "scc", "ttml", "dfxp":
		return true
	}
	return strings.HasPrefix(f.MIME, "text/vtt")
}

type textExtractor struct{}

// textChunk is the read size of the line count after the text is full.
const textChunk = 256 << 10

func (textExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if in.Content != nil && len(in.Content) <= doctext.MaxText {
		return textOfContent(in.Content)
	}
	r, enc, f, err := openText(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text := doctext.NewBuilder(doctext.MaxText)
	var lines int64
	var last byte
	first := true
	buf := make([]byte, textChunk)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, rerr := io.ReadFull(r, buf)
		if errors.Is(rerr, io.ErrUnexpectedEOF) {
			rerr = io.EOF
		}
		chunk := buf[:n]
		if first && n > 0 {
			first = false
			if doctext.LooksBinary(string(chunk)) {
				return nil, fmt.Errorf("not text (%s): %w", enc.Name, extractors.ErrUnsupported)
			}
		}
		if n > 0 {
			lines += int64(bytes.Count(chunk, []byte{'\n'}))
			last = chunk[n-1]
			if !text.Full() {
				text.Write(bytes.ReplaceAll(chunk, []byte{0}, nil))
			} else {
				text.MarkTruncated()
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, doctext.ReadErr(in.Name, rerr)
		}
	}
	if last != '\n' && !first {
		lines++
	}
	data := map[string]any{"encoding": enc.Name, "line_count": lines}
	if enc.BOM {
		data["bom"] = true
	}
	text.Put(data)
	return &extractors.Result{Data: data}, nil
}

// textOfContent is Extract for a small file the worker read already: one
// decode, no buffers.
func textOfContent(b []byte) (*extractors.Result, error) {
	s, enc := doctext.DecodeBytes(b)
	if doctext.LooksBinary(s) {
		return nil, fmt.Errorf("not text (%s): %w", enc.Name, extractors.ErrUnsupported)
	}
	lines := int64(strings.Count(s, "\n"))
	if s != "" && !strings.HasSuffix(s, "\n") {
		lines++
	}
	data := map[string]any{"encoding": enc.Name, "line_count": lines}
	if enc.BOM {
		data["bom"] = true
	}
	text := doctext.NewBuilder(doctext.MaxText)
	text.WriteString(strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD"))
	text.Put(data)
	return &extractors.Result{Data: data}, nil
}
