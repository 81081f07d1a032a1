// Package langid identifies the language of a text (whatlanggo over
// samples of it that vote): the analyses of an item's text (extractors/nlp)
// and the captions whose files declare no language (extractors/captions).
package langid

import (
	"math"
	"strings"
	"unicode"

	"github.com/abadojack/whatlanggo"
)

// Language is the language of a text as whatlanggo identifies it.
type Language struct {
	// Code is ISO 639-1 ("en") when the language has one, else ISO 639-3.
	Code       string
	Name       string
	Script     string
	Confidence float64
	// Reliable is whatlanggo's judgement (confidence above 0.8).
	Reliable bool
}

// whatlanggo's confidence is meant for short texts: past a few KiB its
// distance arithmetic gives negative values. A text is identified in
// samples of sampleSize bytes, at most maxSamples of them spread over the
// text, and the samples vote.
const (
	sampleSize = 2 << 10
	maxSamples = 8
)

// Identify returns the language of text: the language most samples give
// (their confidences summed), with the mean confidence of its samples
// times their share. ok is false when whatlanggo finds none (no letters).
func Identify(text string) (Language, bool) {
	type vote struct {
		info  whatlanggo.Info
		score float64
		n     int
	}
	votes := map[whatlanggo.Lang]*vote{}
	var order []whatlanggo.Lang
	samples := 0
	for _, s := range samplesOf(text) {
		info := whatlanggo.Detect(s)
		if info.Script == nil || info.Lang.String() == "" {
			continue
		}
		conf := math.Max(0, math.Min(1, info.Confidence))
		samples++
		v := votes[info.Lang]
		if v == nil {
			v = &vote{info: info}
			votes[info.Lang] = v
			order = append(order, info.Lang)
		}
		v.score += conf
		v.n++
	}
	if samples == 0 {
		return Language{}, false
	}
	best := votes[order[0]]
	for _, l := range order[1:] {
		if votes[l].score > best.score {
			best = votes[l]
		}
	}
	conf := best.score / float64(samples) // mean confidence x share of samples
	code := best.info.Lang.Iso6391()
	if code == "" {
		code = best.info.Lang.Iso6393()
	}
	return Language{
		Code:       code,
		Name:       best.info.Lang.String(),
		Script:     scriptName(best.info.Script),
		Confidence: math.Round(conf*1000) / 1000,
		Reliable:   conf > whatlanggo.ReliableConfidenceThreshold,
	}, true
}

// samplesOf cuts text into at most maxSamples pieces of about sampleSize
// bytes, spread evenly, each starting and ending at a space.
func samplesOf(text string) []string {
	if len(text) <= sampleSize {
		return []string{text}
	}
	n := min(maxSamples, len(text)/sampleSize)
	step := (len(text) - sampleSize) / max(1, n-1)
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		start := i * step
		for start > 0 && start < len(text) && text[start-1] != ' ' && text[start-1] != '\n' && start > i*step-64 {
			start--
		}
		end := min(len(text), start+sampleSize)
		for end < len(text) && end > start+sampleSize-64 && text[end] != ' ' && text[end] != '\n' {
			end--
		}
		out = append(out, strings.ToValidUTF8(text[start:end], ""))
	}
	return out
}

func scriptName(t *unicode.RangeTable) string {
	if n, ok := whatlanggo.Scripts[t]; ok {
		return n
	}
	// The one table DetectScript returns outside that map: kana.
	return "Hiragana/Katakana"
}
