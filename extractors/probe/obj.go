package probe

import (
	"math"
	"strings"
)

// obj is a data object whose setters leave out unknown values.
type obj map[string]any

func (o obj) str(k, v string) {
	if v = strings.TrimSpace(v); v != "" {
		o[k] = strings.ToValidUTF8(v, "\uFFFD")
	}
}

// count sets a positive integer.
func (o obj) count(k string, v int64) {
	if v > 0 {
		o[k] = v
	}
}

// seconds sets a positive duration rounded to the millisecond.
func (o obj) seconds(k string, v float64) {
	if v > 0 && !math.IsInf(v, 0) {
		o[k] = round3(v)
	}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// setList sets a non-empty list.
func setList(d obj, k string, v []string) {
	if len(v) > 0 {
		d[k] = v
	}
}
