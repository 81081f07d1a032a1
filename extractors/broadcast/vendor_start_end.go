package broadcast

import (
	"sort"

	"github.com/metaharvest/metaharvest/extractors"
)

// vendor_start_end is a vendor-branded analysis of the reference that
// runs here, locally: no provider is needed.
func init() {
	register(extractors.Info{
		Name:        "vendor_start_end",
		DisplayName: "Program Start and End",
		Family:      extractors.FamilyQC,
		Version:     "1.0.0",
		Fields: []extractors.Field{
			{Path: "found", Type: extractors.TypeBool, Doc: "a programme was found between the leader and the trailer (false when they cover everything)"},
			{Path: "start", Type: extractors.TypeNumber, Doc: "programme start, seconds"},
			{Path: "end", Type: extractors.TypeNumber, Doc: "programme end, seconds"},
			{Path: "duration", Type: extractors.TypeNumber, Doc: "programme duration, seconds"},
			{Path: "head_duration", Type: extractors.TypeNumber, Doc: "seconds of leader (bars, black, slates or silence) before the programme"},
			{Path: "tail_duration", Type: extractors.TypeNumber, Doc: "seconds of trailer after the programme"},
			{Path: "analysed_duration", Type: extractors.TypeNumber, Doc: "seconds decoded (at most the first 4 hours)"},
			{Path: "head.kind", Type: extractors.TypeString, Doc: "bars, black, slate or silence"},
			{Path: "head.start", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "head.end", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "head.duration", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "tail.kind", Type: extractors.TypeString, Doc: "bars, black, slate or silence"},
			{Path: "tail.start", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "tail.end", Type: extractors.TypeNumber, Doc: "seconds"},
			{Path: "tail.duration", Type: extractors.TypeNumber, Doc: "seconds"},
		},
	}, either, startEnd)
}

// chainGap is how far apart two stretches of a leader may be (a cut, a
// sample's width).
const chainGap = 0.5

// markedRange is a non-programme stretch and what it is.
type markedRange struct {
	Range
	Kind string
}

// startEnd finds where the programme starts and ends, between the leader
// and the trailer a broadcast master carries (bars and tone, black, a
// slate, a countdown, black; at the end black and silence).
//
// The rule:
//   - Non-programme stretches of a video: colour bars, black (whatever the
//     sound), and slates. A slate is a still picture (neither black nor
//     bars, unchanged for at least 1 s on the samples) while the sound is
//     silent (at least 1 s of both). Without OCR, a slate is known by
//     being still and silent, not by its text; a still, silent title card
//     at the very start is taken for one too. Recognising the text of
//     slates comes with OCR (the slates extractor).
//   - Of an audio file: silence.
//   - The programme starts where the chain of non-programme stretches
//     from the start ends: the chain begins with a stretch that starts
//     within 0.5 s of the start, and goes on with any stretch that starts
//     within 0.5 s of its end. It ends, likewise, where the chain from the
//     end of the file begins. Silence alone does not break into a video's
//     programme (a programme may open on picture without sound).
//   - found is false when the chains meet (nothing but leader).

func startEnd(p *pass) (map[string]any, error) {
	var marks []markedRange
	add := func(kind string, rs []Range) {
		for _, r := range rs {
			marks = append(marks, markedRange{r, kind})
		}
	}
	if p.video {
		for _, b := range barsRanges(p.samples, p.end) {
			marks = append(marks, markedRange{b.Range, "bars"})
		}
		add("black", p.blackRanges())
		if p.audio {
			add("slate", intersect(stillRanges(p.samples, p.end), p.silenceRanges(), minStill))
		}
	} else {
		add("silence", p.silenceRanges())
	}
	prog := findProgramme(marks, p.end)
	data := map[string]any{
		"found":             prog.found,
		"head_duration":     round3(prog.start),
		"tail_duration":     round3(p.end - prog.end),
		"analysed_duration": round3(p.end),
		"head":              markedData(prog.head),
		"tail":              markedData(prog.tail),
	}
	if prog.found {
		data["start"], data["end"], data["duration"] = round3(prog.start), round3(prog.end), round3(prog.end-prog.start)
	}
	return data, nil
}

// programme is what findProgramme found: the programme spans
// [start, end]; head and tail are the chained stretches before and after.
type programme struct {
	found      bool
	start, end float64
	head, tail []markedRange
}

// findProgramme applies the chain rule to marks over a file of length end.
func findProgramme(marks []markedRange, end float64) programme {
	byStart := append([]markedRange(nil), marks...)
	sort.SliceStable(byStart, func(i, j int) bool { return byStart[i].Start < byStart[j].Start })
	var prog programme
	cur := 0.0
	for _, m := range byStart {
		if m.Start > cur+chainGap {
			break
		}
		if m.End > cur {
			prog.head = append(prog.head, m)
			cur = m.End
		}
	}
	if len(prog.head) == 0 {
		cur = 0
	}
	prog.start = cur

	byEnd := append([]markedRange(nil), marks...)
	sort.SliceStable(byEnd, func(i, j int) bool { return byEnd[i].End > byEnd[j].End })
	cur = end
	for _, m := range byEnd {
		if m.End < cur-chainGap {
			break
		}
		if m.Start < cur {
			prog.tail = append(prog.tail, m)
			cur = m.Start
		}
	}
	prog.end = cur
	// The tail was collected backwards.
	for i, j := 0, len(prog.tail)-1; i < j; i, j = i+1, j-1 {
		prog.tail[i], prog.tail[j] = prog.tail[j], prog.tail[i]
	}
	prog.found = prog.end > prog.start
	if !prog.found {
		prog.start, prog.end = end, end
		prog.tail = nil
	}
	return prog
}

func markedData(ms []markedRange) []any {
	out := make([]any, 0, min(len(ms), maxListed))
	for _, m := range ms[:min(len(ms), maxListed)] {
		d := rangeData(m.Range)
		d["kind"] = m.Kind
		out = append(out, d)
	}
	return out
}
