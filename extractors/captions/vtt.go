package captions

import (
	"fmt"
	"strings"
)

// ParseVTT reads a WebVTT file: the "WEBVTT" signature line, header lines
// ("Language: en" is kept), then blocks: cues (an optional identifier, a
// timing line "00:09.000 --> 00:11.000 [settings]", text), NOTE, STYLE and
// REGION blocks (skipped). A block that is none of these is skipped and
// counted. A file with the signature and no cue is valid and empty.
func ParseVTT(b []byte) (*Parsed, error) {
	return parseDecoded(b, parseVTTText)
}

func parseVTTText(text string) (*Parsed, error) {
	r := newLineReader(text)
	first, _ := r.next()
	if !strings.HasPrefix(first, "WEBVTT") || len(first) > 6 && first[6] != ' ' && first[6] != '\t' {
		return nil, &errNotFormat{"WebVTT", "the first line is not WEBVTT"}
	}
	p := &Parsed{Format: "vtt"}
	// Header lines, up to the first blank line.
	for {
		line, more := r.next()
		if !more || strings.TrimSpace(line) == "" {
			break
		}
		if strings.Contains(line, "-->") {
			return nil, &errNotFormat{"WebVTT", fmt.Sprintf("line %d: a cue without the blank line after the header", r.num)}
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "language") {
			p.Language = languageTag(strings.TrimSpace(v))
		}
	}
	const (
		blockStart = iota
		afterID
		inText
		skipBlock
	)
	var list cueList
	state := blockStart
	var start, end int64
	var lines []string
	flush := func() error {
		err := list.add(start, end, lines, stripMarkup)
		lines = lines[:0]
		return err
	}
	for {
		line, more := r.next()
		if !more {
			break
		}
		if strings.TrimSpace(line) == "" {
			if state == inText {
				if err := flush(); err != nil {
					return nil, err
				}
			}
			state = blockStart
			continue
		}
		switch state {
		case blockStart, afterID:
			if s, e, _, ok := timing(line, '.', false, 3); ok {
				start, end, state = s, e, inText
				continue
			}
			if state == blockStart && !strings.Contains(line, "-->") {
				if isVTTSkipBlock(line) {
					state = skipBlock
				} else {
					state = afterID // a cue identifier
				}
				continue
			}
			p.Skipped++
			state = skipBlock
		case inText:
			if len(lines) < maxCueLines {
				lines = append(lines, line)
			}
		}
	}
	if state == inText {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	p.Cues = list.sorted()
	return p, nil
}

func isVTTSkipBlock(line string) bool {
	for _, kw := range []string{"NOTE", "STYLE", "REGION"} {
		if line == kw || strings.HasPrefix(line, kw+" ") || strings.HasPrefix(line, kw+"\t") {
			return true
		}
	}
	return false
}
