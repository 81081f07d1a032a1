package provider

import (
	"math"
	"sort"
	"strings"
)

// Media is one sample sent to a provider: audio or an image, with where it
// was taken from the item (seconds).
type Media struct {
	Type     string   `json:"type"` // audio/wav, image/jpeg
	Time     *float64 `json:"time,omitempty"`
	Start    *float64 `json:"start,omitempty"`
	Duration *float64 `json:"duration,omitempty"`
	Data     []byte   `json:"data"` // base64 in JSON
}

// Label is one thing a provider recognised, as it answers it.
type Label struct {
	Name       string   `json:"name"`
	Confidence *float64 `json:"confidence"`
	Time       *float64 `json:"time"`
	Start      *float64 `json:"start"`
	End        *float64 `json:"end"`
}

// Labels is the result of the labelling tasks.
type Labels struct {
	Labels []Label `json:"labels"`
}

// Bounds of what is kept of a labelling answer.
const (
	MaxLabels    = 500
	maxLabelName = 200
)

// Clean returns the labels worth storing: a name (trimmed, printable, at
// most 200 characters), a confidence within 0..1 (absent: 0, unknown),
// times that are finite, not negative and within maxTime seconds (0: no
// bound), End not before Start; at most MaxLabels, the most confident
// first.
func (l Labels) Clean(maxTime float64) []Label {
	var out []Label
	for _, x := range l.Labels {
		x.Name = CleanText(x.Name, maxLabelName)
		if x.Name == "" {
			continue
		}
		if x.Confidence != nil && !(*x.Confidence >= 0 && *x.Confidence <= 1) {
			continue
		}
		if !okTime(x.Time, maxTime) || !okTime(x.Start, maxTime) || !okTime(x.End, maxTime) {
			continue
		}
		if x.Start != nil && x.End != nil && *x.End < *x.Start {
			continue
		}
		out = append(out, x)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].conf() > out[j].conf() })
	if len(out) > MaxLabels {
		out = out[:MaxLabels]
	}
	return out
}

func (x Label) conf() float64 {
	if x.Confidence == nil {
		return 0
	}
	return *x.Confidence
}

func okTime(t *float64, max float64) bool {
	if t == nil {
		return true
	}
	v := *t
	return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 && (max <= 0 || v <= max)
}

// Data is the label as an extractor stores it: name, confidence (0 when
// unknown) and the times the provider gave.
func (x Label) Data() map[string]any {
	m := map[string]any{"name": x.Name, "confidence": x.conf()}
	for k, v := range map[string]*float64{"time": x.Time, "start": x.Start, "end": x.End} {
		if v != nil {
			m[k] = math.Round(*v*1000) / 1000
		}
	}
	return m
}

// Key is the label's name folded for counting ("Football" and "football "
// are one).
func (x Label) Key() string { return strings.ToLower(strings.TrimSpace(x.Name)) }
