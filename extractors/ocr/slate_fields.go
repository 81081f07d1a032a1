package ocr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// maxFieldValue bounds one value read off a slate, in bytes.
const maxFieldValue = 200

// ParseSlateFields reads the fields of a slate's text: a field's name
// (slateKeys, "TITLE", "SC") followed by its value up to the next name on
// the line ("SCENE 12 TAKE 3"), with or without a colon; a name alone on
// its line takes the next line as its value when that line names nothing.
// Abbreviations (SC, TK, DIR, ...) count only followed by a colon, a full
// stop or a number. The first value of a field is kept; values are cut to
// 200 bytes.
func ParseSlateFields(text string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(text, "\n")
	type tok struct {
		orig, norm string
		marked     bool // a colon or a full stop stuck to it
	}
	tokens := func(line string) []tok {
		var ts []tok
		for _, f := range strings.Fields(line) {
			// "TITLE:HARBOUR" is a name and a value.
			if i := strings.IndexByte(f, ':'); i > 0 && i < len(f)-1 {
				if _, n, _ := keyAt([]string{normWord(f[:i])}, 0); n == 1 {
					ts = append(ts, tok{f[:i+1], normWord(f[:i]), true}, tok{f[i+1:], normWord(f[i+1:]), false})
					continue
				}
			}
			ts = append(ts, tok{f, normWord(f), strings.HasSuffix(f, ":") || strings.HasSuffix(f, ".")})
		}
		return ts
	}
	// keyIn finds the field named at ts[i]: its field and word count.
	keyIn := func(ts []tok, i int) (string, int) {
		norms := make([]string, 0, 3)
		for j := i; j < len(ts) && j < i+3; j++ {
			norms = append(norms, ts[j].norm)
		}
		field, n, full := keyAt(norms, 0)
		if n == 0 {
			return "", 0
		}
		if !full {
			last := ts[i+n-1]
			nextNum := i+n < len(ts) && ts[i+n].orig != "" && unicode.IsDigit([]rune(ts[i+n].orig)[0])
			if !last.marked && !nextNum {
				return "", 0
			}
		}
		return field, n
	}
	namesAny := func(line string) bool {
		ts := tokens(line)
		for i := range ts {
			if _, n := keyIn(ts, i); n > 0 {
				return true
			}
		}
		return false
	}
	for li := 0; li < len(lines); li++ {
		ts := tokens(lines[li])
		for i := 0; i < len(ts); {
			field, n := keyIn(ts, i)
			if n == 0 {
				i++
				continue
			}
			j := i + n
			for j < len(ts) {
				if _, m := keyIn(ts, j); m > 0 {
					break
				}
				j++
			}
			var vals []string
			for _, t := range ts[i+n : j] {
				vals = append(vals, t.orig)
			}
			value := trimValue(strings.Join(vals, " "))
			if value == "" && j == len(ts) && li+1 < len(lines) && !namesAny(lines[li+1]) {
				value = trimValue(lines[li+1])
				if value != "" {
					li++
				}
			}
			if _, seen := out[field]; !seen && value != "" {
				out[field] = doctext.Cut(value, maxFieldValue)
			}
			i = j
		}
	}
	return out
}

// normWord is a word as slate names are matched: upper case, without the
// punctuation around it.
func normWord(w string) string {
	return strings.TrimFunc(strings.ToUpper(w), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// trimValue strips the separators OCR leaves around a value.
func trimValue(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(":-=#.|_~", r)
	})
}

var (
	// 00:00:30:00, 00:00:30;12, 00:00:30, 0:30
	clockDuration = regexp.MustCompile(`^(?:(\d{1,2}):)?(\d{1,2}):(\d{2})(?:[:;.](\d{2}))?$`)
	// 30s, 30 sec, 30 seconds, 30", 1'30, 1'30", 1m30s, 1 min 30 s, 2 min, 1h 2m
	unitDuration = regexp.MustCompile(`^(?:(\d{1,3})\s*(?:H|HR|HRS|HOURS?)\s*)?(?:(\d{1,4})\s*(?:'|M|MIN|MINS|MINUTES?)\s*)?(?:(\d{1,5}(?:[.,]\d+)?)\s*(?:"|''|S|SEC|SECS|SECONDS?)?)?$`)
)

// DurationSeconds reads a slate's duration ("30s", "0:30", "00:00:30:00",
// "1'30\"", "2 min"); ok is false when it does not read as one.
func DurationSeconds(v string) (seconds float64, ok bool) {
	v = strings.ToUpper(strings.TrimSpace(v))
	v = strings.ReplaceAll(v, "’", "'")
	v = strings.ReplaceAll(v, "”", `"`)
	if v == "" || len(v) > 40 {
		return 0, false
	}
	if m := clockDuration.FindStringSubmatch(v); m != nil {
		h, _ := strconv.Atoi(m[1])
		mi, _ := strconv.Atoi(m[2])
		s, _ := strconv.Atoi(m[3])
		if mi >= 60 && m[1] != "" || s >= 60 {
			return 0, false
		}
		return float64(h*3600 + mi*60 + s), true
	}
	m := unitDuration.FindStringSubmatch(v)
	if m == nil || m[1] == "" && m[2] == "" && m[3] == "" {
		return 0, false
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	s, _ := strconv.ParseFloat(strings.ReplaceAll(m[3], ",", "."), 64)
	return float64(h*3600+mi*60) + s, true
}

// dateLayouts are the written dates a slate may carry (month names match
// in any case).
var dateLayouts = []string{"2006-01-02", "2006/01/02", "2 January 2006", "2 Jan 2006", "January 2, 2006",
	"Jan 2, 2006", "January 2 2006", "Jan 2 2006", "02-Jan-2006", "2-Jan-2006", "2.Jan.2006", "02-Jan-06"}

var numericDate = regexp.MustCompile(`^(\d{1,2})[./-](\d{1,2})[./-](\d{2}|\d{4})$`)

// ISODate reads a slate's date as YYYY-MM-DD; ok is false when it does not
// read as a date, or could be two (01/02/2024: a day and a month either
// way round).
func ISODate(v string) (date string, ok bool) {
	v = strings.Join(strings.Fields(v), " ")
	if v == "" || len(v) > 40 {
		return "", false
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t.Format("2006-01-02"), true
		}
	}
	m := numericDate.FindStringSubmatch(v)
	if m == nil {
		return "", false
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	y, _ := strconv.Atoi(m[3])
	if len(m[3]) == 2 {
		y += 2000
	}
	day, month := a, b
	switch {
	case a > 12 && b <= 12:
	case b > 12 && a <= 12:
		day, month = b, a
	default:
		return "", false
	}
	t := time.Date(y, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if t.Day() != day || int(t.Month()) != month {
		return "", false
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, month, day), true
}
