package captions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// FileExts are the extensions of the caption files the platform reads
// (lower case, no dot).
var FileExts = []string{"srt", "vtt", "webvtt", "ass", "ssa", "ttml", "dfxp", "scc"}

// fileMIMEs are the types mime_type gives caption files it recognises.
var fileMIMEs = []string{"application/x-subrip", "text/vtt", "application/ttml+xml"}

// isCaptionName reports whether name has a caption file extension.
func isCaptionName(name string) bool {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	for _, e := range FileExts {
		if ext == e {
			return true
		}
	}
	return false
}

// sccSignature starts every Scenarist caption file.
const sccSignature = "Scenarist_SCC V1.0"

// Parse reads a caption file of any supported format. The content decides
// the format where it carries a signature (WEBVTT, [Script Info],
// Scenarist_SCC, an XML <tt> root); the extension of name otherwise (SRT
// has none). SCC is decoded by ffmpeg through run (nil: SCC is refused).
// Content over MaxFileSize is refused unread.
func Parse(ctx context.Context, run *extractors.Runner, name string, b []byte) (*Parsed, error) {
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("caption file of %d bytes, larger than %d", len(b), MaxFileSize)
	}
	if bytes.HasPrefix(bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF}), []byte(sccSignature)) {
		if run == nil {
			return nil, errors.New("SCC captions are not accepted here")
		}
		return parseSCC(ctx, run, b)
	}
	return parseDecoded(b, func(text string) (*Parsed, error) {
		switch sniff(text, name) {
		case "vtt":
			return parseVTTText(text)
		case "ass":
			return parseASSText(text)
		case "ttml":
			return parseTTMLText(text)
		case "scc":
			return nil, &errNotFormat{"SCC", "the first line is not " + sccSignature}
		}
		return parseSRTText(text)
	})
}

// sniff names the format of text: by signature, else by extension.
func sniff(text, name string) string {
	head := strings.TrimLeft(strings.TrimPrefix(text, "\uFEFF"), " \t\n")
	switch {
	case strings.HasPrefix(head, "WEBVTT"):
		return "vtt"
	case len(head) >= 13 && strings.EqualFold(head[:13], "[Script Info]"):
		return "ass"
	case strings.HasPrefix(head, "<?xml") || strings.HasPrefix(head, "<tt"):
		return "ttml"
	}
	switch strings.ToLower(strings.TrimPrefix(path.Ext(name), ".")) {
	case "vtt", "webvtt":
		return "vtt"
	case "ass", "ssa":
		return "ass"
	case "ttml", "dfxp", "xml":
		return "ttml"
	case "scc":
		return "scc"
	}
	return "srt"
}

// maxSCCOutput bounds the SubRip text ffmpeg makes of an SCC file: about
// ten times the SCC itself at worst (a cue per byte pair).
const maxSCCOutput = 64 << 20

// parseSCC decodes Scenarist closed captions (CEA-608 byte pairs with
// SMPTE timecodes) with ffmpeg's scc demuxer and cc_dec decoder into
// SubRip, read back with ParseSRT's rules. The bytes go through a pipe:
// ffmpeg opens no file and no protocol but the pipe.
func parseSCC(ctx context.Context, run *extractors.Runner, b []byte) (*Parsed, error) {
	args := []string{"-nostdin", "-hide_banner", "-v", "error", "-protocol_whitelist", "pipe",
		"-format_whitelist", "scc", "-f", "scc", "-i", "pipe:0", "-map", "0:s:0", "-f", "srt", "pipe:1"}
	out, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Stdin: bytes.NewReader(b),
		MaxOutput: maxSCCOutput, MaxMemory: 1 << 30})
	if err != nil {
		if ctx.Err() != nil {
			return nil, extractors.Transient(err)
		}
		return nil, fmt.Errorf("decode SCC: %w", err)
	}
	p, err := parseFFmpegSRT(out)
	if err != nil {
		return nil, fmt.Errorf("decode SCC: %w", err)
	}
	p.Format, p.Encoding = "scc", "ascii"
	return p, nil
}

// parseFFmpegSRT reads the SubRip that ffmpeg writes for a subtitle or
// caption stream: UTF-8, markup such as <font face="Monospace">{\an7}
// removed. No output at all is a caption without cues.
func parseFFmpegSRT(out []byte) (*Parsed, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return &Parsed{Format: "srt", Encoding: encUTF8}, nil
	}
	return ParseSRT(out)
}
