package broadcast

import "math"

// Range is a stretch of the media, in seconds from its start.
type Range struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Duration is End - Start.
func (r Range) Duration() float64 { return r.End - r.Start }

// maxListed bounds the ranges an extractor lists in its Data: a file that
// flashes black every second for four hours keeps its count and total, and
// lists its first maxListed ranges.
const maxListed = 1000

// round3 rounds seconds (or decibels) to three decimals, the precision the
// analyses store.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// rangeData is one stored range.
func rangeData(r Range) map[string]any {
	return map[string]any{"start": round3(r.Start), "end": round3(r.End), "duration": round3(r.Duration())}
}

// rangesData lists up to maxListed ranges as stored data.
func rangesData(rs []Range) []any {
	out := make([]any, 0, min(len(rs), maxListed))
	for _, r := range rs[:min(len(rs), maxListed)] {
		out = append(out, rangeData(r))
	}
	return out
}

// summaryData is what every range analysis stores: how many ranges, their
// total duration, the decoded duration, and the ranges under listKey.
func summaryData(listKey string, rs []Range, analysed float64) map[string]any {
	total := 0.0
	for _, r := range rs {
		total += r.Duration()
	}
	return map[string]any{
		"count":             len(rs),
		"total_duration":    round3(total),
		"analysed_duration": round3(analysed),
		listKey:             rangesData(rs),
	}
}

// clip keeps the parts of rs inside [0, end], dropping what is left empty.
func clip(rs []Range, end float64) []Range {
	out := rs[:0:0]
	for _, r := range rs {
		r.Start, r.End = max(r.Start, 0), min(r.End, end)
		if r.End > r.Start {
			out = append(out, r)
		}
	}
	return out
}

// intersect returns the parts common to a range of a and a range of b, of
// at least minDur seconds, in time order. Each list is in time order
// without overlaps (what the detectors give), so one merge-like walk does.
func intersect(a, b []Range, minDur float64) []Range {
	var out []Range
	for i, j := 0, 0; i < len(a) && j < len(b); {
		r := Range{Start: max(a[i].Start, b[j].Start), End: min(a[i].End, b[j].End)}
		if r.Duration() >= minDur {
			out = append(out, r)
		}
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}
