package captions

import (
	"strings"
)

// ParseASS reads a SubStation Alpha (SSA v4) or Advanced SubStation
// (ASS, v4+) script: the "[Script Info]" section must come first; the
// "Dialogue:" lines of "[Events]" are the cues, their fields named by the
// section's "Format:" line (Start, End, Text). Times are centiseconds
// ("0:02:16.61"). Override blocks ({\i1}, {\pos(..)}) are removed, "\N"
// and "\n" are line breaks, "\h" a space. Format is "ass" or "ssa" after
// the script's ScriptType.
func ParseASS(b []byte) (*Parsed, error) {
	return parseDecoded(b, parseASSText)
}

func parseASSText(text string) (*Parsed, error) {
	r := newLineReader(text)
	for {
		line, more := r.next()
		if !more {
			return nil, &errNotFormat{"SubStation Alpha", "no [Script Info] section"}
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.EqualFold(line, "[Script Info]") {
			return nil, &errNotFormat{"SubStation Alpha", "it does not start with [Script Info]"}
		}
		break
	}
	p := &Parsed{Format: "ass"}
	var list cueList
	section := "script info"
	// SSA v4 and ASS both name Start, End and Text; without a Format line
	// the ten fields of both versions apply.
	startAt, endAt, textAt, fields := 1, 2, 9, 10
	for {
		line, more := r.next()
		if !more {
			break
		}
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.ToLower(line[1 : len(line)-1])
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		switch {
		case section == "script info" && key == "scripttype":
			if strings.EqualFold(val, "v4.00") {
				p.Format = "ssa"
			}
		case section == "events" && key == "format":
			names := strings.Split(val, ",")
			if len(names) > 32 {
				continue
			}
			s, e, t := -1, -1, -1
			for i, n := range names {
				switch strings.ToLower(strings.TrimSpace(n)) {
				case "start":
					s = i
				case "end":
					e = i
				case "text":
					t = i
				}
			}
			if s >= 0 && e >= 0 && t == len(names)-1 {
				startAt, endAt, textAt, fields = s, e, t, len(names)
			}
		case section == "events" && key == "dialogue":
			parts := strings.SplitN(val, ",", fields)
			if len(parts) < fields {
				p.Skipped++
				continue
			}
			start, ok1 := assClock(parts[startAt])
			end, ok2 := assClock(parts[endAt])
			if !ok1 || !ok2 {
				p.Skipped++
				continue
			}
			if err := list.add(start, end, assLines(parts[textAt]), stripMarkup); err != nil {
				return nil, err
			}
		}
	}
	p.Cues = list.sorted()
	return p, nil
}

// assClock parses "h:mm:ss.cc".
func assClock(s string) (int64, bool) {
	ms, rest, ok := clock(strings.TrimSpace(s), '.', true, 1, 2)
	return ms, ok && rest == ""
}

// assLines splits the text of an event at its line breaks (\N hard, \n
// soft) with \h as a space.
func assLines(s string) []string {
	s = strings.ReplaceAll(s, `\h`, " ")
	s = strings.ReplaceAll(s, `\N`, "\n")
	s = strings.ReplaceAll(s, `\n`, "\n")
	return strings.SplitN(s, "\n", maxCueLines+1)
}
