package web

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/search"
)

// textPart is a piece of untrusted text; Mark says the search matched it.
// Templates write both as text (the <mark> element is the template's).
type textPart struct {
	Text string
	Mark bool
}

// highlightParts splits a fragment from the engine, where matches are
// wrapped in search.HighlightPre/Post, into parts. The fragment is document
// text as stored: anything else in it, markup included, stays text.
func highlightParts(fragment string) []textPart {
	var out []textPart
	for fragment != "" {
		i := strings.Index(fragment, search.HighlightPre)
		if i < 0 {
			out = append(out, textPart{Text: fragment})
			break
		}
		if i > 0 {
			out = append(out, textPart{Text: fragment[:i]})
		}
		rest := fragment[i+len(search.HighlightPre):]
		j := strings.Index(rest, search.HighlightPost)
		if j < 0 {
			out = append(out, textPart{Text: rest, Mark: true})
			break
		}
		if j > 0 {
			out = append(out, textPart{Text: rest[:j], Mark: true})
		}
		fragment = rest[j+len(search.HighlightPost):]
	}
	return out
}

// truncate cuts s to at most n runes, on a rune boundary, with "…".
func truncate(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…", true
		}
		i++
	}
	return s, false
}

// timecode writes seconds as 00:01:02.
func timecode(sec float64) string {
	if sec < 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		sec = 0
	}
	s := int64(sec)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

// humanDuration writes seconds as 1:02:03 or 2:03.
func humanDuration(sec float64) string {
	if sec <= 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		return ""
	}
	// Whole seconds elapsed, as media players count them (5.6 s is 0:05
	// under the player as on the page).
	s := int64(sec)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// seconds writes a time for data attributes and ?t= (milliseconds at most).
func seconds(t float64) string {
	if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
		t = 0
	}
	return strconv.FormatFloat(math.Round(t*1000)/1000, 'f', -1, 64)
}

// humanSize writes bytes as 1.5 MB.
func humanSize(n int64) string {
	if n < 1000 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"kB", "MB", "GB", "TB", "PB"}
	v := float64(n)
	for _, u := range units {
		v /= 1000
		if v < 1000 || u == "PB" {
			if v < 10 {
				return strconv.FormatFloat(v, 'f', 1, 64) + " " + u
			}
			return strconv.FormatFloat(v, 'f', 0, 64) + " " + u
		}
	}
	return ""
}

// number reads a JSON number (float64 after decoding) or numeric string.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// lookup follows a dotted path through decoded JSON objects.
func lookup(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func jsonUnmarshal(b []byte, v any) error {
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, v)
}

func partsText(parts []textPart) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
