package search

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/store"
)

// Captions are linked to segments by time when the segments are built, so
// that a segment search for a word spoken or shown finds the moment it is
// spoken or shown (summary.transcript), whichever extractor made the
// caption (subtitle tracks, caption files, speech to text) or if a user
// uploaded it. The rule:
//
//   - A segment at time t reaches until the next segment's time, and at
//     most TranscriptReach seconds: [t, min(next, t+TranscriptReach)).
//   - A cue [start, end) belongs to every segment whose reach it overlaps
//     (a cue spanning a cut belongs to the frames on both sides); a cue
//     without duration is a point at its start.
//   - Cues no segment reaches (an audio file, a video without frame
//     analysis, speech after the last frame's reach or before the first
//     frame) make segments of their own: the first such cue's start is a
//     segment's time, and the following unreached cues starting within
//     TranscriptReach of it fall in its reach. Such segments have no
//     thumbnail. Every segment a cue is found in is thus at most
//     TranscriptReach seconds before the cue starts, or the cue is already
//     on at the segment's time.
//   - A segment carries one transcript entry per caption (at most
//     MaxSegmentTranscripts, in the order the captions were stored), its
//     cues' text one a line, cut at MaxSegmentTranscriptBytes; entries
//     equal in source, language and text are one.
//
// The segment_parts rows are left alone: the links are derived, rebuilt
// with the segments whenever the item is indexed, so an uploaded or
// deleted caption shows in the segments at the next indexing of the item.
const (
	// TranscriptReach is the longest stretch, in seconds, a segment takes
	// cues from (the default spacing of periodic frames is 10 s; most
	// subtitle cues last 1 to 6 s).
	TranscriptReach = 5.0
	// MaxSegmentTranscriptBytes bounds the text of one caption in one
	// segment (a few cues fill a segment's reach; the rest is a caption
	// whose cues all overlap, which is not worth indexing 20000 times).
	MaxSegmentTranscriptBytes = 2048
	// MaxSegmentTranscripts bounds the captions linked to one segment (a
	// file may carry dozens of subtitle languages).
	MaxSegmentTranscripts = 8
	// MaxCueSegments bounds the segments made of cues for one item; cues
	// beyond them stay in the item's transcript.text only.
	MaxCueSegments = extractors.MaxSegments
)

// reachMS is TranscriptReach in milliseconds, the unit of segment times.
const reachMS = int64(TranscriptReach * 1000)

// maxCueMS ignores cues said to start after 100 days (a hostile caption
// file): no item lasts that long, and their milliseconds would overflow.
const maxCueMS = int64(100 * 24 * 3600 * 1000)

// timedCaption is one caption of an item, its cues sorted by start, those
// without text left out.
type timedCaption struct {
	Source, Language string
	Cues             []timedCue
}

type timedCue struct {
	start, end int64 // ms, end > start
	text       string
	// startS and endS are the cue's own times in seconds, which entries
	// report.
	startS, endS float64
}

// loadTimedCaptions reads the captions of items, in the order the items'
// transcript.text lists them (by time stored, then id).
func loadTimedCaptions(ctx context.Context, db *store.DB, ids []string) (map[string][]timedCaption, error) {
	rows, err := store.DocCaptions(db.WithContext(ctx), ids)
	if err != nil {
		return nil, fmt.Errorf("load captions for segments: %w", err)
	}
	out := map[string][]timedCaption{}
	for _, r := range rows {
		var cues []extractors.Cue
		if json.Unmarshal(r.Cues, &cues) != nil {
			continue // malformed cues link nothing
		}
		if c := newTimedCaption(r.Source, r.Language, cues); len(c.Cues) > 0 {
			out[r.ItemID] = append(out[r.ItemID], c)
		}
	}
	return out, nil
}

// newTimedCaption prepares a caption's cues for linking: whitespace folded
// (a two-line subtitle reads as one line), empty cues dropped, times in
// milliseconds, sorted by start.
func newTimedCaption(source, language string, cues []extractors.Cue) timedCaption {
	c := timedCaption{Source: source, Language: language}
	for _, q := range cues {
		text := strings.Join(strings.Fields(q.Text), " ")
		if text == "" || math.IsNaN(q.Start) || math.IsNaN(q.End) {
			continue
		}
		startS, endS := max(q.Start, 0), q.End
		if startS*1000 > float64(maxCueMS) {
			continue
		}
		start := int64(math.Round(startS * 1000))
		end := start + 1 // a point: it belongs to the reach holding its start
		if endS > startS {
			end = max(end, int64(math.Round(min(endS, float64(maxCueMS)/1000)*1000)))
		} else {
			endS = startS
		}
		c.Cues = append(c.Cues, timedCue{start: start, end: end, text: text, startS: startS, endS: endS})
	}
	sort.SliceStable(c.Cues, func(i, j int) bool { return c.Cues[i].start < c.Cues[j].start })
	return c
}

// linkTranscripts links the captions of an item to its segments (sorted
// by time, distinct milliseconds) by the rule above, adding segments made
// by newSegment for the cues no segment reaches. It returns the segments
// sorted by time.
func linkTranscripts(segs []Segment, caps []timedCaption, newSegment func(ms int64) Segment) []Segment {
	if len(caps) == 0 {
		return segs
	}
	times := make([]int64, len(segs))
	for i, s := range segs {
		times[i] = segmentMS(s)
	}

	// Cues no segment reaches start segments of their own.
	var unreached []int64
	ends := reaches(times)
	for _, c := range caps {
		for _, q := range c.Cues {
			if lo, hi := overlapping(times, ends, q); lo > hi {
				unreached = append(unreached, q.start)
			}
		}
	}
	if len(unreached) > 0 {
		sort.Slice(unreached, func(i, j int) bool { return unreached[i] < unreached[j] })
		at := map[int64]bool{}
		for _, t := range times {
			at[t] = true
		}
		added := 0
		next := int64(math.MinInt64)
		for _, s := range unreached {
			if s < next || at[s] {
				continue
			}
			if added == MaxCueSegments {
				break
			}
			segs = append(segs, newSegment(s))
			at[s] = true
			added++
			next = s + reachMS
		}
		sort.SliceStable(segs, func(i, j int) bool { return segmentMS(segs[i]) < segmentMS(segs[j]) })
		times = times[:0]
		for _, s := range segs {
			times = append(times, segmentMS(s))
		}
		ends = reaches(times)
	}

	// Each caption's cues go to the segments whose reach they overlap. A
	// segment whose entry for this caption is full, or which carries
	// MaxSegmentTranscripts entries already, is skipped in constant time
	// (full segments point past themselves), so that a caption whose cues
	// all overlap costs no more than the text it adds.
	n := len(segs)
	skip := make([]int, n+1)
	find := func(i int) int {
		r := i
		for skip[r] != r {
			r = skip[r]
		}
		for skip[i] != r {
			skip[i], i = r, skip[i]
		}
		return r
	}
	entry := make([]*transcriptEntry, n)
	for _, c := range caps {
		for i := range skip {
			skip[i] = i
			if i < n && len(segs[i].Summary.Transcript) >= MaxSegmentTranscripts {
				skip[i] = i + 1
			}
		}
		var touched []int
		for _, q := range c.Cues {
			lo, hi := overlapping(times, ends, q)
			for i := find(lo); i <= hi; i = find(i + 1) {
				e := entry[i]
				if e == nil {
					e = &transcriptEntry{start: q.startS, end: q.endS}
					entry[i] = e
					touched = append(touched, i)
				}
				if e.add(q) {
					skip[i] = i + 1
				}
			}
		}
		sort.Ints(touched)
		for _, i := range touched {
			e := entry[i]
			entry[i] = nil
			t := SegmentTranscript{Text: e.text.String(), Source: c.Source, Language: c.Language,
				Start: roundMS(e.start), End: roundMS(e.end)}
			if !hasTranscript(segs[i].Summary.Transcript, t) {
				segs[i].Summary.Transcript = append(segs[i].Summary.Transcript, t)
			}
		}
	}
	return segs
}

// transcriptEntry gathers one caption's text for one segment.
type transcriptEntry struct {
	text       strings.Builder
	start, end float64
}

// add appends a cue's text and reports whether the entry is now full.
func (e *transcriptEntry) add(q timedCue) bool {
	e.start, e.end = min(e.start, q.startS), max(e.end, q.endS)
	room := MaxSegmentTranscriptBytes - e.text.Len()
	if e.text.Len() > 0 {
		room-- // the line break
	}
	if room <= 0 {
		return true
	}
	piece, full := q.text, false
	if len(piece) > room {
		piece, full = truncateUTF8(piece, room), true
		// Whole words only, unless one word is all there is.
		if k := strings.LastIndexByte(piece, ' '); k > 0 {
			piece = piece[:k]
		} else if e.text.Len() > 0 {
			return true
		}
	}
	if e.text.Len() > 0 {
		e.text.WriteByte('\n')
	}
	e.text.WriteString(piece)
	return full || e.text.Len() >= MaxSegmentTranscriptBytes
}

func hasTranscript(have []SegmentTranscript, t SegmentTranscript) bool {
	for _, h := range have {
		if h.Source == t.Source && h.Language == t.Language && h.Text == t.Text {
			return true
		}
	}
	return false
}

// reaches returns the end of each segment's reach (exclusive): the next
// segment's time, at most reachMS after its own. Like the times, the ends
// do not decrease.
func reaches(times []int64) []int64 {
	ends := make([]int64, len(times))
	for i, t := range times {
		ends[i] = t + reachMS
		if i+1 < len(times) {
			ends[i] = min(ends[i], times[i+1])
		}
	}
	return ends
}

// overlapping returns the indexes lo..hi of the segments whose reach the
// cue overlaps (lo > hi when none does). Reaches are disjoint and in time
// order, so they are a run found by two binary searches.
func overlapping(times, ends []int64, q timedCue) (lo, hi int) {
	lo = sort.Search(len(ends), func(i int) bool { return ends[i] > q.start })
	hi = sort.Search(len(times), func(i int) bool { return times[i] >= q.end }) - 1
	return lo, hi
}

func segmentMS(s Segment) int64 { return int64(math.Round(s.Time * 1000)) }

func roundMS(s float64) float64 { return math.Round(s*1000) / 1000 }
