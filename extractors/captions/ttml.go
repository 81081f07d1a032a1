package captions

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// maxXMLDepth bounds the nesting a TTML document may have: caption
// documents are four or five levels deep (tt, body, div, p, span).
const maxXMLDepth = 64

// ParseTTML reads a Timed Text (TTML 1/2, DFXP, IMSC) document: its <p>
// elements are the cues, timed by their begin and end (or dur) attributes,
// offset by the begin of their enclosing body and div elements. Times may
// be clock times ("00:00:01.500", "00:00:01:12" in frames) or offsets
// ("1.5s", "1500ms", "36f", "900000t") with the document's ttp:frameRate,
// ttp:frameRateMultiplier and ttp:tickRate. <br/> is a line break; the
// text of <span> elements is kept. xml:lang of the root is the language.
// Go's XML decoder expands no external entities and no DTD.
func ParseTTML(b []byte) (*Parsed, error) {
	return parseDecoded(b, parseTTMLText)
}

// ttmlRates are the document's timing parameters.
type ttmlRates struct {
	frameRate float64 // effective frames per second (multiplier applied)
	tickRate  float64
}

type ttmlElem struct {
	name          string
	begin         int64 // absolute begin of the element, ms
	end           int64 // absolute end, ms; -1 unknown
	timed, hasEnd bool
}

func parseTTMLText(text string) (*Parsed, error) {
	dec := xml.NewDecoder(strings.NewReader(strings.TrimPrefix(text, "\uFEFF")))
	dec.Strict = true
	// The bytes are decoded to UTF-8 already, whatever the declaration
	// says.
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	p := &Parsed{Format: "ttml"}
	var list cueList
	rates := ttmlRates{frameRate: 30, tickRate: 1}
	var stack []ttmlElem
	var cur *strings.Builder // text of the <p> being read
	var curLines []string
	inP := -1 // stack index of the open <p>
	rooted := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if len(stack) == 0 && len(list.cues) == 0 {
				return nil, &errNotFormat{"TTML", fmt.Sprintf("XML: %v", err)}
			}
			return nil, &errNotFormat{"TTML", fmt.Sprintf("XML at line %d: %v", lineOf(dec), err)}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 {
				if t.Name.Local != "tt" {
					return nil, &errNotFormat{"TTML", fmt.Sprintf("the root element is <%s>, not <tt>", t.Name.Local)}
				}
				if rooted {
					return nil, &errNotFormat{"TTML", "a second root element"}
				}
				rooted = true
				rates = ttmlRatesOf(t.Attr)
				p.Language = languageTag(attr(t.Attr, "lang"))
			}
			if len(stack) >= maxXMLDepth {
				return nil, &errNotFormat{"TTML", "elements nested too deep"}
			}
			parent := ttmlElem{end: -1}
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			el := ttmlElem{name: t.Name.Local, begin: parent.begin, end: parent.end, hasEnd: parent.hasEnd}
			ok := true
			if v := attr(t.Attr, "begin"); v != "" {
				var off int64
				if off, ok = ttmlTime(v, rates); ok {
					el.begin, el.timed = parent.begin+off, true
				}
			}
			if v := attr(t.Attr, "end"); v != "" && ok {
				var off int64
				if off, ok = ttmlTime(v, rates); ok {
					el.end, el.hasEnd, el.timed = parent.begin+off, true, true
				}
			} else if v := attr(t.Attr, "dur"); v != "" && ok {
				var d int64
				if d, ok = ttmlTime(v, rates); ok {
					el.end, el.hasEnd, el.timed = el.begin+d, true, true
				}
			}
			if !ok && el.name == "p" {
				p.Skipped++
				el.timed, el.hasEnd = false, false
				el.end = -1
			}
			stack = append(stack, el)
			switch {
			case el.name == "p" && inP < 0:
				inP = len(stack) - 1
				cur = &strings.Builder{}
				curLines = curLines[:0]
			case el.name == "br" && inP >= 0:
				curLines = appendLine(curLines, cur)
			}
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			el := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if inP == len(stack) {
				inP = -1
				curLines = appendLine(curLines, cur)
				if !el.hasEnd || !ended(el) {
					if joinLines(curLines, nil) != "" {
						p.Skipped++
					}
					continue
				}
				if err := list.add(el.begin, el.end, curLines, nil); err != nil {
					return nil, err
				}
			}
		case xml.CharData:
			if inP >= 0 && cur.Len() < 2*maxCueText {
				// Whitespace in TTML text collapses to single spaces.
				cur.WriteString(strings.Join(strings.Fields(string(t)), " "))
				if len(t) > 0 && isSpace(t[len(t)-1]) {
					cur.WriteByte(' ')
				}
			}
		}
	}
	if !rooted {
		return nil, &errNotFormat{"TTML", "no <tt> element"}
	}
	p.Cues = list.sorted()
	return p, nil
}

func ended(el ttmlElem) bool { return el.end >= 0 }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func appendLine(lines []string, cur *strings.Builder) []string {
	if cur == nil {
		return lines
	}
	if len(lines) < maxCueLines {
		lines = append(lines, cur.String())
	}
	cur.Reset()
	return lines
}

func lineOf(dec *xml.Decoder) int {
	line, _ := dec.InputPos()
	return line
}

func attr(attrs []xml.Attr, local string) string {
	for _, a := range attrs {
		if a.Name.Local == local {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

func ttmlRatesOf(attrs []xml.Attr) ttmlRates {
	r := ttmlRates{frameRate: 30, tickRate: 1}
	if v, err := strconv.ParseFloat(attr(attrs, "frameRate"), 64); err == nil && v > 0 && v < 1000 {
		r.frameRate = v
		if n, d, found := strings.Cut(attr(attrs, "frameRateMultiplier"), " "); found {
			nf, err1 := strconv.ParseFloat(strings.TrimSpace(n), 64)
			df, err2 := strconv.ParseFloat(strings.TrimSpace(d), 64)
			if err1 == nil && err2 == nil && nf > 0 && df > 0 && nf/df < 10 && nf/df > 0.1 {
				r.frameRate *= nf / df
			}
		}
		r.tickRate = r.frameRate
	}
	if v, err := strconv.ParseFloat(attr(attrs, "tickRate"), 64); err == nil && v > 0 && v < 1e9 {
		r.tickRate = v
	}
	return r
}

// maxTTMLTime bounds a time expression (about 31 years): larger values are
// not a caption's.
const maxTTMLTime = 1e12 // ms

// ttmlTime parses a TTML time expression into milliseconds.
func ttmlTime(s string, r ttmlRates) (int64, bool) {
	if strings.Count(s, ":") >= 2 {
		parts := strings.Split(s, ":")
		if len(parts) > 4 {
			return 0, false
		}
		h, err1 := strconv.ParseUint(parts[0], 10, 32)
		m, err2 := strconv.ParseUint(parts[1], 10, 8)
		if err1 != nil || err2 != nil || m >= 60 || len(parts[1]) != 2 {
			return 0, false
		}
		ms := (int64(h)*60 + int64(m)) * 60000
		if len(parts) == 3 { // hh:mm:ss(.fraction)
			sec, ok := decimalMS(parts[2], 1000)
			if !ok || sec >= 60000 || len(parts[2]) < 2 || parts[2][1] == '.' {
				return 0, false
			}
			return ms + sec, true
		}
		sec, err := strconv.ParseUint(parts[2], 10, 8) // hh:mm:ss:frames(.subframes)
		if err != nil || sec >= 60 || len(parts[2]) != 2 {
			return 0, false
		}
		frames, ok := decimalValue(parts[3])
		if !ok {
			return 0, false
		}
		return ms + int64(sec)*1000 + int64(math.Round(frames*1000/r.frameRate)), true
	}
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') && s[i-1] != '.' {
		i--
	}
	num, metric := s[:i], s[i:]
	var unit float64
	switch metric {
	case "h":
		unit = 3600000
	case "m":
		unit = 60000
	case "s":
		return decimalMS(num, 1000)
	case "ms":
		return decimalMS(num, 1)
	case "f":
		unit = 1000 / r.frameRate
	case "t":
		unit = 1000 / r.tickRate
	default:
		return 0, false
	}
	v, ok := decimalValue(num)
	if !ok || v*unit > maxTTMLTime {
		return 0, false
	}
	return int64(math.Round(v * unit)), true
}

// decimalMS parses a non-negative decimal number of units (1000: seconds,
// 1: milliseconds) into milliseconds without going through binary floating
// point for the first three decimals of a second, so "2.345" is 2345 ms.
func decimalMS(s string, unit int64) (int64, bool) {
	ip, fp, _ := strings.Cut(s, ".")
	if ip == "" || len(ip) > 10 || !digits(ip) || !digits(fp) {
		return 0, false
	}
	n, _ := strconv.ParseInt(ip, 10, 64)
	ms := n * unit
	if fp != "" {
		// unit/1000 of a second per digit position beyond the point.
		f, _ := strconv.ParseFloat("0."+doctext.Cut(fp, 12), 64)
		ms += int64(math.Round(f * float64(unit)))
	}
	return ms, ms <= maxTTMLTime
}

func decimalValue(s string) (float64, bool) {
	ip, fp, _ := strings.Cut(s, ".")
	if ip == "" || len(ip) > 12 || !digits(ip) || !digits(fp) || len(fp) > 12 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
