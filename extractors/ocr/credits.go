package ocr

import (
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// credits finds the credits of a video by the text of its frames.
//
// The rule:
//   - Credits are looked for in the last quarter of the video, and at
//     least its last five minutes (creditsZone): the whole of a short clip.
//   - A frame is credit-like when it has text, is not slate-like (see
//     slate_rule.go), and either shows at least three lines of which at
//     least 60% are short (at most six words and 48 characters: names and
//     roles), or shows two lines or more with a credit word (directed by,
//     producer, cast, music, copyright ...).
//   - Credits are runs of at least two credit-like frames, one frame
//     without them allowed between two (cards fading through black); a
//     run stands for the time from its first frame to the frame after its
//     last, and its text is the distinct lines of its frames in order
//     (scrolling credits show a line on several frames).
//   - The closing credits are the last run; the top-level start, end,
//     duration and text are theirs.
func init() {
	registerAnalysis(extractors.Info{
		Name:        "credits",
		DisplayName: "Credits",
		Family:      extractors.FamilyText,
		Version:     "1.0.0",
		Fields: append(rangeFields("credits"),
			extractors.Field{Path: "count", Type: extractors.TypeNumber, Doc: "runs of credits found"},
			extractors.Field{Path: "found", Type: extractors.TypeBool, Doc: "credits were found"},
			extractors.Field{Path: "start", Type: extractors.TypeNumber, Doc: "start of the closing credits (the last run), seconds"},
			extractors.Field{Path: "end", Type: extractors.TypeNumber, Doc: "end of the closing credits, seconds"},
			extractors.Field{Path: "duration", Type: extractors.TypeNumber, Doc: "duration of the closing credits, seconds"},
			extractors.Field{Path: "text", Type: extractors.TypeText, Doc: "text of the closing credits: their distinct lines, at most 16 KiB"},
			extractors.Field{Path: "credits.text", Type: extractors.TypeText, Doc: "the run's distinct lines, at most 16 KiB"},
			extractors.Field{Path: "credits.lines", Type: extractors.TypeNumber, Doc: "distinct lines read in the run"},
		),
	}, creditsRule)
}

const (
	creditsZoneMin   = 300.0
	creditsZoneShare = 0.25
	shortLineWords   = 6
	shortLineBytes   = 48
	maxCreditsText   = 16 << 10
)

// creditsRule lists the runs of credits found by the rule above, the last
// one (the closing credits) at the top level too.
func creditsRule(_ *extractors.Input, vr *videoReading) map[string]any {
	found := findCredits(vr)
	data := map[string]any{"count": len(found), "found": len(found) > 0}
	list := make([]any, 0, len(found))
	for _, c := range found[:min(len(found), maxListed)] {
		d := spanData(c.span)
		d["text"], d["lines"] = c.Text, c.Lines
		list = append(list, d)
	}
	data["credits"] = list
	if n := len(found); n > 0 {
		last := found[n-1]
		data["start"], data["end"], data["duration"] = round3(last.Start), round3(last.End), round3(last.Duration())
		data["text"] = last.Text
	}
	return data
}

// creditRun is one run of credits.
type creditRun struct {
	span
	Text  string
	Lines int
}

// findCredits applies the credits rule.
func findCredits(vr *videoReading) []creditRun {
	zoneStart := vr.Duration - max(creditsZoneMin, creditsZoneShare*vr.Duration)
	like := make([]bool, len(vr.Frames))
	for i, f := range vr.Frames {
		like[i] = f.HasText && f.Time >= zoneStart && creditLike(f.Text)
	}
	var out []creditRun
	for _, r := range vr.runs(func(i int) bool { return like[i] }, 1) {
		n := 0
		for i := r.First; i <= r.Last; i++ {
			if like[i] {
				n++
			}
		}
		if n < 2 {
			continue
		}
		text := newTextBuilder(maxCreditsText)
		seen := map[string]bool{}
		for i := r.First; i <= r.Last; i++ {
			if !like[i] {
				continue
			}
			for _, l := range textLines(vr.Frames[i].Text) {
				key := strings.ToUpper(l)
				if seen[key] {
					continue
				}
				seen[key] = true
				text.add("\n", l)
			}
		}
		out = append(out, creditRun{span: vr.span(r), Text: text.String(), Lines: len(seen)})
	}
	return out
}

// creditLike says whether a frame's text looks like credits.
func creditLike(text string) bool {
	keywords, cues := slateEvidence(text)
	if len(keywords) >= 2 && len(keywords) > cues {
		return false // a slate
	}
	lines := textLines(text)
	short := 0
	for _, l := range lines {
		if len(strings.Fields(l)) <= shortLineWords && len(l) <= shortLineBytes {
			short++
		}
	}
	return len(lines) >= 3 && short*10 >= len(lines)*6 || len(lines) >= 2 && cues > 0
}

// textLines are the non-blank lines of a frame's text, trimmed.
func textLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
