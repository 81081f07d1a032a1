package captions

import (
	"errors"
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// Bounds of what a caption file may make the platform hold.
const (
	// MaxFileSize is the largest caption file read: a feature film's
	// subtitles are a few hundred kilobytes; an ASS file with fonts or a
	// TTML file a few megabytes. Larger files are refused before reading.
	MaxFileSize = 16 << 20
	// maxCueText bounds the text of one cue (longer text is cut at a
	// character boundary): a cue is shown on screen for seconds, a few
	// lines long.
	maxCueText = 2048
	// maxCueLines bounds the lines of one cue.
	maxCueLines = 16
)

// ErrTooManyCues is returned for a caption with more cues than a caption
// record may hold (extractors.MaxCues).
var ErrTooManyCues = fmt.Errorf("more than %d cues", extractors.MaxCues)

// Parsed is a caption file read into cues.
type Parsed struct {
	// Format of the file ("srt", "vtt", "ass", "ssa", "ttml", "scc").
	Format string
	// Encoding the text was in ("utf-8", "utf-16le", "windows-1251"...).
	Encoding string
	// Language the file declares (WebVTT "Language:" header, TTML
	// xml:lang), else "".
	Language string
	// Cues in time order, times exact to the millisecond of the source.
	Cues []extractors.Cue
	// Skipped counts blocks that were not cues (malformed timing).
	Skipped int
}

// Duration is the end of the last cue, in seconds.
func (p *Parsed) Duration() float64 {
	var end float64
	for _, c := range p.Cues {
		end = max(end, c.End)
	}
	return end
}

// cueList collects cues with the bounds applied.
type cueList struct {
	cues []extractors.Cue
}

// add appends a cue of start/end milliseconds with raw text lines,
// cleaned by clean. Cues without text are dropped; an end before the start
// is taken as the start (a zero-length cue).
func (l *cueList) add(startMS, endMS int64, lines []string, clean func(string) string) error {
	text := joinLines(lines, clean)
	if text == "" {
		return nil
	}
	if len(l.cues) >= extractors.MaxCues {
		return ErrTooManyCues
	}
	if endMS < startMS {
		endMS = startMS
	}
	l.cues = append(l.cues, extractors.Cue{Start: seconds(startMS), End: seconds(endMS), Text: text})
	return nil
}

// sorted returns the cues by start time (files may list them out of order:
// ASS events are in layer order).
func (l *cueList) sorted() []extractors.Cue {
	sort.SliceStable(l.cues, func(i, j int) bool { return l.cues[i].Start < l.cues[j].Start })
	return l.cues
}

// seconds turns milliseconds into seconds; ms/1000 is the float closest
// to the decimal number, so the JSON reads exactly as the source wrote it.
func seconds(ms int64) float64 { return float64(ms) / 1000 }

// millis is the inverse of seconds, rounded.
func millis(s float64) int64 {
	if math.IsNaN(s) || s < 0 {
		return 0
	}
	return int64(math.Round(s * 1000))
}

// joinLines cleans each line, drops empty ones and joins them with "\n",
// bounded in lines and bytes.
func joinLines(lines []string, clean func(string) string) string {
	var sb strings.Builder
	n := 0
	for _, ln := range lines {
		if n == maxCueLines {
			break
		}
		if clean != nil {
			ln = clean(ln)
		}
		ln = strings.TrimSpace(sanitise(ln))
		if ln == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(ln)
		n++
		if sb.Len() >= maxCueText {
			break
		}
	}
	return doctext.Cut(sb.String(), maxCueText)
}

// sanitise removes control characters (Postgres refuses NUL in JSON text,
// and none belongs in a caption) and invalid UTF-8.
func sanitise(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 && s[i] != '\t' || s[i] == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// stripMarkup removes the formatting of subtitle text: HTML-like tags
// (<i>, <font color=...>, WebVTT <v Speaker>, <c.class>, <00:01.000>),
// ASS override blocks ({\an8}, {\i1}) and character references (&amp;).
// What is left is the words, as a viewer reads them.
func stripMarkup(s string) string {
	if strings.ContainsAny(s, "<{") {
		s = stripTags(s)
	}
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	return s
}

func stripTags(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == '<' || c == '{' {
			closer := byte('>')
			if c == '{' {
				closer = '}'
			}
			if j := strings.IndexByte(s[i+1:], closer); j >= 0 && j < 256 && isMarkup(c, s[i+1:i+1+j]) {
				i += j + 2
				continue
			}
		}
		sb.WriteByte(c)
		i++
	}
	return sb.String()
}

// isMarkup tells a tag or override block from text between brackets: a
// tag starts with a letter, '/' or a digit (a WebVTT timestamp) and holds
// no other bracket; an ASS override block starts with a backslash.
func isMarkup(open byte, inner string) bool {
	if inner == "" || strings.ContainsAny(inner, "<{") {
		return false
	}
	if open == '{' {
		return inner[0] == '\\'
	}
	c := inner[0]
	return c == '/' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// errNotFormat says content is not of the format a parser reads.
type errNotFormat struct {
	format string
	why    string
}

func (e *errNotFormat) Error() string { return fmt.Sprintf("not a %s file: %s", e.format, e.why) }

// IsNotFormat reports whether err says the content is not of the expected
// caption format (as opposed to a caption too big to keep).
func IsNotFormat(err error) bool {
	var nf *errNotFormat
	return errors.As(err, &nf) || errors.Is(err, errBinary)
}

// lineReader yields the lines of a text one at a time (a slice of every
// line of a 16 MiB file of newlines would be 256 MiB of string headers).
type lineReader struct {
	s   string
	pos int
	num int // number of the line last returned, from 1
}

// newLineReader reads the lines of text, a byte-order mark left at its
// start skipped.
func newLineReader(text string) *lineReader {
	return &lineReader{s: strings.TrimPrefix(text, "\uFEFF")}
}

func (r *lineReader) next() (string, bool) {
	if r.pos > len(r.s) || r.pos == len(r.s) && r.num > 0 && r.s[len(r.s)-1] == '\n' {
		return "", false
	}
	r.num++
	i := strings.IndexByte(r.s[r.pos:], '\n')
	if i < 0 {
		ln := r.s[r.pos:]
		r.pos = len(r.s) + 1
		return ln, true
	}
	ln := r.s[r.pos : r.pos+i]
	r.pos += i + 1
	return ln, true
}

// clock parses a timestamp "[h:]mm:ss<frac>ttt" (frac is ',' for SRT,
// '.' for WebVTT and ASS) at the start of s and returns it in milliseconds
// with the rest of s. Minutes and seconds are two digits below 60 (one or
// two for ASS, minDigits); hours one to four digits; needHours says whether
// hours must be there; fracDigits is how many digits the fraction has (3:
// milliseconds, 2: centiseconds).
func clock(s string, frac byte, needHours bool, minDigits, fracDigits int) (ms int64, rest string, ok bool) {
	var vals, widths [3]int
	n, i := 0, 0
	for {
		start := i
		v := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-start < 4 {
			v = v*10 + int(s[i]-'0')
			i++
		}
		if i == start || n == 3 {
			return 0, s, false
		}
		vals[n], widths[n] = v, i-start
		n++
		if i < len(s) && s[i] == ':' {
			i++
			continue
		}
		break
	}
	if n < 2 || needHours && n < 3 || i >= len(s) || s[i] != frac {
		return 0, s, false
	}
	i++
	f := 0
	for k := 0; k < fracDigits; k++ {
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return 0, s, false
		}
		f = f*10 + int(s[i]-'0')
		i++
	}
	if i < len(s) && s[i] >= '0' && s[i] <= '9' {
		return 0, s, false // more fraction digits than the format has
	}
	for k := fracDigits; k < 3; k++ {
		f *= 10
	}
	h := 0
	if n == 3 {
		h = vals[0]
	}
	m, sec := vals[n-2], vals[n-1]
	for _, w := range widths[n-2 : n] {
		if w < minDigits || w > 2 {
			return 0, s, false
		}
	}
	if m >= 60 || sec >= 60 {
		return 0, s, false
	}
	return ((int64(h)*60+int64(m))*60+int64(sec))*1000 + int64(f), s[i:], true
}

// timing parses "start --> end[ settings]" with clock's rules.
func timing(line string, frac byte, needHours bool, fracDigits int) (start, end int64, settings string, ok bool) {
	s := strings.TrimLeft(line, " \t")
	start, s, ok = clock(s, frac, needHours, 2, fracDigits)
	if !ok {
		return 0, 0, "", false
	}
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, "-->") {
		return 0, 0, "", false
	}
	s = strings.TrimLeft(s[3:], " \t")
	end, s, ok = clock(s, frac, needHours, 2, fracDigits)
	if !ok || s != "" && s[0] != ' ' && s[0] != '\t' {
		return 0, 0, "", false
	}
	return start, end, strings.TrimSpace(s), true
}
