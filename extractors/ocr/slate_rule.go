package ocr

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// The slate rule, shared by slates and vendor_digital_slates:
//
//   - A slate is looked for in the first and the last minute of the video
//     (slateZone), where masters carry them.
//   - A frame there is slate-like when its text names at least two
//     different slate fields by their full words (TITLE, PRODUCTION,
//     SCENE, TAKE, ROLL, DATE, DIRECTOR, CLIENT, AGENCY, PRODUCT,
//     DURATION, LENGTH, ASPECT RATIO, CLOCK, ISCI, VERSION, EPISODE,
//     PROGRAMME, SERIES, AUDIO, FORMAT, CAMERA, LANGUAGE, TIMECODE ...)
//     and more of them than credit words (directed by, producer, cast,
//     music ... : "Director of Photography" and "Production Designer"
//     are credits), or when it names one and vendor_start_end (when it
//     ran) found a still, silent slate there.
//   - Consecutive slate-like frames are one slate, standing for the time
//     from its first frame to the frame after its last: a slate is a
//     still card, so its frames read the same; its text is that of the
//     frame naming most fields (the longest on a tie).
const slateZone = 60.0

// slateKeys maps the words that name a slate field (upper case; several
// words joined by a space) to the field. full says whether the words count
// as evidence of a slate; abbreviations only name fields.
var slateKeys = []struct {
	words, field string
	full         bool
}{
	{"ASPECT RATIO", "aspect_ratio", true}, {"CLOCK NUMBER", "clock_number", true}, {"CLOCK NO", "clock_number", true},
	{"AIR DATE", "air_date", true}, {"FRAME RATE", "frame_rate", true}, {"START TC", "timecode", true},
	{"TITLE", "title", true}, {"PRODUCTION", "production", true}, {"SCENE", "scene", true}, {"TAKE", "take", true},
	{"ROLL", "roll", true}, {"DATE", "date", true}, {"DIRECTOR", "director", true}, {"CLIENT", "client", true},
	{"AGENCY", "agency", true}, {"PRODUCT", "product", true}, {"DURATION", "duration", true}, {"LENGTH", "duration", true},
	{"ASPECT", "aspect_ratio", true}, {"CLOCK", "clock_number", true}, {"ISCI", "clock_number", true},
	{"VERSION", "version", true}, {"EPISODE", "episode", true}, {"PROGRAMME", "programme", true}, {"PROGRAM", "programme", true},
	{"SERIES", "series", true}, {"AUDIO", "audio", true}, {"FORMAT", "format", true}, {"CAMERA", "camera", true},
	{"LANGUAGE", "language", true}, {"TIMECODE", "timecode", true}, {"FPS", "frame_rate", true},
	{"PROD", "production", false}, {"SC", "scene", false}, {"TK", "take", false}, {"DIR", "director", false},
	{"DUR", "duration", false}, {"EP", "episode", false}, {"CAM", "camera", false}, {"TC", "timecode", false},
}

// slateFields lists every field a slate may name, in a stable order.
var slateFields = []string{"title", "production", "programme", "series", "episode", "scene", "take", "roll", "camera",
	"date", "air_date", "director", "client", "agency", "product", "duration", "aspect_ratio", "frame_rate",
	"clock_number", "version", "audio", "format", "language", "timecode"}

// creditCues are words of credits: a frame holding more of them than
// slate words is not a slate.
var creditCues = []string{"BY", "PRODUCER", "PRODUCERS", "DESIGNER", "PHOTOGRAPHY", "STARRING", "CAST", "MUSIC",
	"EDITOR", "EDITED", "WRITTEN", "EXECUTIVE", "ASSOCIATE", "SUPERVISOR", "COPYRIGHT", "©", "THANKS", "CREW",
	"COMPOSER", "CASTING", "COSTUME", "MAKEUP", "STUNT", "ASSISTANT", "RESERVED", "END"}

// words splits text into upper-case words, without the punctuation that
// sticks to them ("TITLE:" is TITLE), keeping the line breaks as "\n".
func words(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			out = append(out, "\n")
		}
		for _, w := range strings.Fields(line) {
			w = strings.TrimFunc(strings.ToUpper(w), func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '©'
			})
			if w != "" {
				out = append(out, w)
			}
		}
	}
	return out
}

// keyAt returns the slate key starting at ws[i] and how many words it
// takes, the longest first.
func keyAt(ws []string, i int) (field string, n int, full bool) {
	for _, k := range slateKeys {
		kw := strings.Fields(k.words)
		if i+len(kw) > len(ws) {
			continue
		}
		if slices.Equal(ws[i:i+len(kw)], kw) {
			return k.field, len(kw), k.full
		}
	}
	return "", 0, false
}

// slateEvidence counts the different fields text names in full words, and
// its credit words.
func slateEvidence(text string) (keywords []string, credits int) {
	ws := words(text)
	for i := 0; i < len(ws); i++ {
		if slices.Contains(creditCues, ws[i]) {
			credits++
		}
		field, n, full := keyAt(ws, i)
		if n == 0 {
			continue
		}
		if full && !slices.Contains(keywords, field) {
			keywords = append(keywords, field)
		}
		i += n - 1
	}
	return keywords, credits
}

// slate is one slate found by the rule.
type slate struct {
	span
	Position string // head or tail
	Text     string
	Keywords []string
}

// slatesOf are the slates of the item's video: the slate rule applied to
// its frames, with the still, silent slates vendor_start_end found when it
// ran in the harvest.
func slatesOf(in *extractors.Input, vr *videoReading) []slate {
	return findSlates(vr, stillSlates(in.Prior["vendor_start_end"]))
}

// slateListFields declares what the slate analyses store of the slates
// found (slate.data) and their count, then more of their own.
func slateListFields(more ...extractors.Field) []extractors.Field {
	return append(append(rangeFields("slates"),
		extractors.Field{Path: "count", Type: extractors.TypeNumber, Doc: "slates found"},
		extractors.Field{Path: "slates.position", Type: extractors.TypeString, Doc: "head (first minute) or tail (last minute)"},
		extractors.Field{Path: "slates.text", Type: extractors.TypeText, Doc: "text of the slate"},
	), more...)
}

// data is what the slate analyses store of a slate: its range, where it
// is, and its text.
func (s slate) data() map[string]any {
	d := spanData(s.span)
	d["position"], d["text"] = s.Position, doctext.Cut(s.Text, maxFrameText)
	return d
}

// findSlates applies the slate rule; still are the still, silent slates of
// vendor_start_end (nil when it did not run).
func findSlates(vr *videoReading, still []span) []slate {
	type ev struct {
		keywords []string
		like     bool
	}
	evs := make([]ev, len(vr.Frames))
	inZone := func(t float64) string {
		switch {
		case t < slateZone:
			return "head"
		case vr.Duration > 0 && t >= vr.Duration-slateZone:
			return "tail"
		}
		return ""
	}
	for i, f := range vr.Frames {
		if !f.HasText || inZone(f.Time) == "" {
			continue
		}
		kw, credits := slateEvidence(f.Text)
		like := len(kw) >= 2 && len(kw) > credits
		if !like && len(kw) == 1 && credits == 0 {
			for _, s := range still {
				if f.Time >= s.Start-0.001 && f.Time < s.End {
					like = true
				}
			}
		}
		evs[i] = ev{kw, like}
	}
	var out []slate
	for _, r := range vr.runs(func(i int) bool { return evs[i].like }, 0) {
		best := r.First
		for i := r.First; i <= r.Last; i++ {
			if len(evs[i].keywords) > len(evs[best].keywords) ||
				len(evs[i].keywords) == len(evs[best].keywords) && len(vr.Frames[i].Text) > len(vr.Frames[best].Text) {
				best = i
			}
		}
		out = append(out, slate{span: vr.span(r), Position: inZone(vr.Frames[r.First].Time),
			Text: vr.Frames[best].Text, Keywords: evs[best].keywords})
	}
	return out
}

// stillSlates reads the still, silent slates vendor_start_end found at
// either end ({head,tail: [{kind, start, end}]}); nil when it did not run.
func stillSlates(raw json.RawMessage) []span {
	type marked struct {
		Kind  string  `json:"kind"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
	}
	var d struct {
		Head []marked `json:"head"`
		Tail []marked `json:"tail"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil {
		return nil
	}
	var out []span
	for _, m := range append(d.Head, d.Tail...) {
		if m.Kind == "slate" && m.End > m.Start {
			out = append(out, span{m.Start, m.End})
		}
	}
	return out
}
