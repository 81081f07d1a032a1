package api

import (
	"encoding/json"
	"math"
	"strings"
)

// The item summary reads extractors' data leniently: a value of an
// unexpected type (an older extractor version, a provider's answer) is
// treated as absent rather than failing the whole summary.

// dataOf decodes one extractor's data as a JSON object (nil when absent or
// not an object).
func dataOf(meta map[string]json.RawMessage, extractor string) map[string]any {
	raw, ok := meta[extractor]
	if !ok {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// at follows a path of member names.
func at(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// strAt is the string at path, trimmed ("" when absent or not a string).
func strAt(v any, path ...string) string {
	s, _ := at(v, path...).(string)
	return strings.TrimSpace(s)
}

// numAt is the finite number at path.
func numAt(v any, path ...string) (float64, bool) {
	f, ok := at(v, path...).(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// intAt is the number at path as an integer (rounded).
func intAt(v any, path ...string) (int64, bool) {
	f, ok := numAt(v, path...)
	if !ok || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(math.Round(f)), true
}

// listAt is the array at path (nil when absent or not an array).
func listAt(v any, path ...string) []any {
	l, _ := at(v, path...).([]any)
	return l
}

// stringsAt is the strings at path: a list of strings, or one string.
func stringsAt(v any, path ...string) []string {
	switch x := at(v, path...).(type) {
	case string:
		if s := strings.TrimSpace(x); s != "" {
			return []string{s}
		}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok && strings.TrimSpace(s) != "" {
				out = append(out, strings.TrimSpace(s))
			}
		}
		return out
	}
	return nil
}
