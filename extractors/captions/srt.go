package captions

import (
	"fmt"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// ParseSRT reads a SubRip file: blocks of an optional number, a timing
// line "00:02:16,612 --> 00:02:19,376" and text lines, separated by blank
// lines. The file must start with such a block (a text file that merely
// looks alike, with "." or no milliseconds, is not SRT); a later block
// without a valid timing line is skipped and counted. Text is cleaned of
// markup (<i>, <font>, {\an8}).
func ParseSRT(b []byte) (*Parsed, error) {
	return parseDecoded(b, parseSRTText)
}

func parseSRTText(text string) (*Parsed, error) {
	const (
		expectCue = iota
		expectTiming
		inText
		skipBlock
	)
	p := &Parsed{Format: "srt"}
	var list cueList
	state := expectCue
	var start, end int64
	var lines []string
	blocks := 0
	flush := func() error {
		err := list.add(start, end, lines, stripMarkup)
		lines = lines[:0]
		return err
	}
	bad := func(r *lineReader, line string) error {
		if blocks == 0 {
			return &errNotFormat{"SRT", fmt.Sprintf("line %d is not a cue number or timing: %q", r.num, doctext.Cut(line, 40))}
		}
		p.Skipped++
		return nil
	}
	r := newLineReader(text)
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
			if state == expectTiming {
				if err := bad(r, "(a number alone)"); err != nil {
					return nil, err
				}
			}
			state = expectCue
			continue
		}
		switch state {
		case expectCue, expectTiming:
			if s, e, _, ok := timing(line, ',', true, 3); ok {
				start, end, state = s, e, inText
				blocks++
				continue
			}
			if state == expectCue && isNumber(line) {
				state = expectTiming
				continue
			}
			if err := bad(r, line); err != nil {
				return nil, err
			}
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
	if blocks == 0 {
		return nil, &errNotFormat{"SRT", "no cue"}
	}
	p.Cues = list.sorted()
	return p, nil
}

func isNumber(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// WriteSRT renders cues as a SubRip file (UTF-8, "\r\n" line ends as
// players expect), numbering them from 1. A cue's blank lines are dropped
// (a blank line would end it).
func WriteSRT(cues []extractors.Cue) []byte {
	var sb strings.Builder
	for i, c := range cues {
		fmt.Fprintf(&sb, "%d\r\n%s --> %s\r\n", i+1, srtClock(millis(c.Start)), srtClock(millis(c.End)))
		for _, ln := range strings.Split(c.Text, "\n") {
			if ln = strings.TrimSpace(ln); ln != "" {
				sb.WriteString(ln)
				sb.WriteString("\r\n")
			}
		}
		sb.WriteString("\r\n")
	}
	return []byte(sb.String())
}

func srtClock(ms int64) string {
	return fmt.Sprintf("%02d:%02d:%02d,%03d", ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
}
