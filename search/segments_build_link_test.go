package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// The rule linking captions to segments (linkTranscripts), on segment
// times and cues given in seconds.

func segsAt(times ...float64) []Segment {
	var out []Segment
	for _, t := range times {
		out = append(out, testSegment(int64(t*1000)))
	}
	return out
}

func testSegment(ms int64) Segment {
	return Segment{ID: fmt.Sprintf("v-%d", ms), ItemID: "v", Time: float64(ms) / 1000}
}

func caption(source, lang string, cues ...extractors.Cue) timedCaption {
	return newTimedCaption(source, lang, cues)
}

func cue(start, end float64, text string) extractors.Cue {
	return extractors.Cue{Start: start, End: end, Text: text}
}

// linked renders segments as "time:text|text" per segment, the texts of
// every entry (lines joined by "/"), for comparison.
func linked(segs []Segment) string {
	var out []string
	for _, s := range segs {
		var texts []string
		for _, t := range s.Summary.Transcript {
			texts = append(texts, strings.ReplaceAll(t.Text, "\n", "/"))
		}
		out = append(out, fmt.Sprintf("%g:%s", s.Time, strings.Join(texts, "|")))
	}
	return strings.Join(out, " ")
}

func TestLinkTranscripts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		segs  []Segment
		cues  []extractors.Cue
		want  string
		added int // segments made of cues
	}{
		{
			name: "each cue goes to the frames whose stretch it overlaps",
			segs: segsAt(0, 2, 4),
			cues: []extractors.Cue{cue(0.5, 1.5, "rain over New York"), cue(1.8, 2.6, "across the cut"), cue(4.2, 5, "more rain")},
			want: "0:rain over New York/across the cut 2:across the cut 4:more rain",
		},
		{
			name: "a cue ending where the next frame begins stays before it",
			segs: segsAt(0, 2),
			cues: []extractors.Cue{cue(1, 2, "before"), cue(2, 2, "a point at the cut")},
			want: "0:before 2:a point at the cut",
		},
		{
			name: "a frame reaches TranscriptReach seconds at most; cues beyond start segments",
			segs: segsAt(0, 20),
			cues: []extractors.Cue{cue(3, 4, "near the first"), cue(7, 8, "starts a segment"), cue(9, 10, "joins it"),
				cue(12, 13, "starts another"), cue(21, 22, "near the second"), cue(26, 27, "after the second's reach")},
			want:  "0:near the first 7:starts a segment/joins it 12:starts another 20:near the second 26:after the second's reach",
			added: 3,
		},
		{
			name: "no frames: cues make the segments, grouped by reach",
			cues: []extractors.Cue{cue(0.21, 2.79, "he was not an ill disposed young man"), cue(3, 4.5, "and so on"),
				cue(5.21, 8, "he might even have been made amiable himself")},
			want:  "0.21:he was not an ill disposed young man/and so on 5.21:he might even have been made amiable himself",
			added: 2,
		},
		{
			name: "cues before the first frame; a cue reaching into the first frame's stretch is in both",
			segs: segsAt(10),
			cues: []extractors.Cue{cue(2, 3, "early"), cue(6, 10.5, "long line"), cue(8, 11, "overlapping")},
			want: "2:early/long line 10:long line/overlapping",
			// 6..10.5 and 8..11 reach the frame at 10; only "early" made a
			// segment, whose stretch [2, 7) the long line then overlaps too.
			added: 1,
		},
		{
			name: "cue text folded to one line; empty and unordered cues",
			segs: segsAt(0),
			cues: []extractors.Cue{cue(3, 4, "second"), cue(1, 2, "  first line\n  second line "), cue(2, 3, " \n ")},
			want: "0:first line second line/second",
		},
		{
			name: "segments keep what extractors said of them",
			segs: func() []Segment {
				s := segsAt(0)
				s[0].Summary.OCR = []SegmentText{{Text: "EXIT"}}
				s[0].Thumbnail = &Thumbnail{Thumbnail: extractors.Thumbnail{Path: "f.jpg"}}
				return s
			}(),
			cues: []extractors.Cue{cue(0, 1, "hello")},
			want: "0:hello",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.segs)
			var ocr []SegmentText
			if before > 0 {
				ocr = tc.segs[0].Summary.OCR
			}
			got := linkTranscripts(tc.segs, []timedCaption{caption("sidecar", "en", tc.cues...)}, testSegment)
			if s := linked(got); s != tc.want {
				t.Errorf("got  %s\nwant %s", s, tc.want)
			}
			if len(got)-before != tc.added {
				t.Errorf("%d segments made of cues, want %d", len(got)-before, tc.added)
			}
			for i, s := range got {
				if i > 0 && s.Time <= got[i-1].Time {
					t.Errorf("segments out of order: %s", linked(got))
				}
				if s.ID != fmt.Sprintf("v-%d", int64(s.Time*1000+0.5)) || s.ItemID != "v" {
					t.Errorf("segment %+v", s)
				}
				for _, tr := range s.Summary.Transcript {
					if tr.Source != "sidecar" || tr.Language != "en" || tr.Start > tr.End {
						t.Errorf("entry %+v", tr)
					}
				}
			}
			if ocr != nil && (len(got[0].Summary.OCR) != 1 || got[0].Thumbnail == nil) {
				t.Errorf("the frame lost its summary or thumbnail: %+v", got[0])
			}
		})
	}
}

func TestLinkTranscriptsEntries(t *testing.T) {
	t.Parallel()
	// One entry per caption, with its source, language and the span of
	// its cues; a caption read twice (captions and captionsv2 on one
	// track) is one entry.
	segs := linkTranscripts(segsAt(0, 4), []timedCaption{
		caption("embedded", "eng", cue(3.5, 4.5, "the ferry leaves"), cue(1, 2, "at noon")),
		caption("sidecar", "fr", cue(0.5, 1.5, "le bac part")),
		caption("embedded", "eng", cue(3.5, 4.5, "the ferry leaves"), cue(1, 2, "at noon")),
		caption("speech", "", cue(4.1, 4.9, "the very leaves")),
	}, testSegment)
	want0 := []SegmentTranscript{
		{Text: "at noon\nthe ferry leaves", Source: "embedded", Language: "eng", Start: 1, End: 4.5},
		{Text: "le bac part", Source: "sidecar", Language: "fr", Start: 0.5, End: 1.5},
	}
	want4 := []SegmentTranscript{
		{Text: "the ferry leaves", Source: "embedded", Language: "eng", Start: 3.5, End: 4.5},
		{Text: "the very leaves", Source: "speech", Start: 4.1, End: 4.9},
	}
	if fmt.Sprint(segs[0].Summary.Transcript) != fmt.Sprint(want0) || fmt.Sprint(segs[1].Summary.Transcript) != fmt.Sprint(want4) {
		t.Fatalf("entries:\n%+v\n%+v", segs[0].Summary.Transcript, segs[1].Summary.Transcript)
	}

	// At most MaxSegmentTranscripts captions per segment, the first stored.
	var caps []timedCaption
	for i := range MaxSegmentTranscripts + 3 {
		caps = append(caps, caption("embedded", fmt.Sprintf("l%d", i), cue(0, 1, "words")))
	}
	segs = linkTranscripts(segsAt(0), caps, testSegment)
	if tr := segs[0].Summary.Transcript; len(tr) != MaxSegmentTranscripts || tr[0].Language != "l0" || tr[len(tr)-1].Language != fmt.Sprintf("l%d", MaxSegmentTranscripts-1) {
		t.Fatalf("entries of many captions: %+v", tr)
	}
}

func TestLinkTranscriptsBounds(t *testing.T) {
	t.Parallel()
	// Many cues in one stretch: the text is cut at whole words at
	// MaxSegmentTranscriptBytes.
	var cues []extractors.Cue
	for i := range 200 {
		cues = append(cues, cue(float64(i)/100, float64(i)/100+0.5, fmt.Sprintf("word%03d and some more words", i)))
	}
	segs := linkTranscripts(segsAt(0), []timedCaption{caption("file", "en", cues...)}, testSegment)
	text := segs[0].Summary.Transcript[0].Text
	if len(text) > MaxSegmentTranscriptBytes || len(text) < MaxSegmentTranscriptBytes-40 || !strings.HasPrefix(text, "word000 and") ||
		strings.HasSuffix(text, " ") {
		t.Fatalf("%d bytes: ...%s", len(text), text[max(0, len(text)-60):])
	}
	for _, w := range strings.Fields(text) {
		if w != "and" && w != "some" && w != "more" && w != "words" && !(strings.HasPrefix(w, "word") && len(w) == 7) {
			t.Fatalf("cut inside a word: %q", w)
		}
	}

	// A hostile caption: every cue spans every frame. Each frame's entry
	// is bounded, and the work with it (full frames are skipped).
	var frames []float64
	for i := range 5000 {
		frames = append(frames, float64(i))
	}
	cues = cues[:0]
	for i := range 20000 {
		cues = append(cues, cue(0, 1e7, fmt.Sprintf("line %d", i)))
	}
	segs = linkTranscripts(segsAt(frames...), []timedCaption{caption("uploaded", "", cues...)}, testSegment)
	if len(segs) != len(frames) {
		t.Fatalf("%d segments", len(segs))
	}
	for _, s := range segs {
		if len(s.Summary.Transcript) != 1 || len(s.Summary.Transcript[0].Text) > MaxSegmentTranscriptBytes {
			t.Fatalf("segment %v: %d entries", s.Time, len(s.Summary.Transcript))
		}
	}

	// Segments made of cues are bounded per item; absurd times are ignored.
	cues = cues[:0]
	for i := range MaxCueSegments + 10 {
		cues = append(cues, cue(float64(i)*(TranscriptReach+1), float64(i)*(TranscriptReach+1)+1, "x"))
	}
	cues = append(cues, cue(1e300, 1e301, "far away"), cue(-5, -1, "before the start"))
	segs = linkTranscripts(nil, []timedCaption{caption("speech", "en", cues...)}, testSegment)
	if len(segs) != MaxCueSegments || segs[0].Time != 0 || segs[0].Summary.Transcript[0].Text != "x\nbefore the start" {
		t.Fatalf("%d segments made of cues, first %+v", len(segs), segs[0])
	}
}
