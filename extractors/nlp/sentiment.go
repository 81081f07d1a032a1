package nlp

import (
	"math"
	"sort"
	"strings"

	"github.com/jonreiter/govader"
)

// Sentiment is one verdict on a text with its confidence.
type Sentiment struct {
	Name       string // positive, negative, neutral, mixed
	Confidence float64
}

// vaderThreshold is VADER's usual bound of a neutral compound score.
const vaderThreshold = 0.05

// maxSentimentWords bounds the weight of one sentence.
const maxSentimentWords = 50

// Sentiments scores each sentence with VADER (English) and returns the
// four verdicts of the item summary, the likeliest first, confidences
// summing to 1: positive, negative and neutral are the shares of the
// text's words in sentences of each kind (compound score above 0.05,
// below -0.05, between); mixed is twice the smaller of the positive and
// negative shares (a text as positive as it is negative is mixed), and
// the four are then scaled to sum to 1. Nil when no sentence has a word.
func Sentiments(a *govader.SentimentIntensityAnalyzer, sents [][]Token) []Sentiment {
	var pos, neg, neu float64
	for _, s := range sents {
		words := 0
		var b strings.Builder
		for _, t := range s {
			if t.Word {
				words++
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
			}
			b.WriteString(t.Text)
		}
		if words == 0 {
			continue
		}
		w := float64(min(words, maxSentimentWords))
		switch c := a.PolarityScores(b.String()).Compound; {
		case c >= vaderThreshold:
			pos += w
		case c <= -vaderThreshold:
			neg += w
		default:
			neu += w
		}
	}
	total := pos + neg + neu
	if total == 0 {
		return nil
	}
	pos, neg, neu = pos/total, neg/total, neu/total
	mixed := 2 * math.Min(pos, neg)
	sum := pos + neg + neu + mixed
	out := []Sentiment{
		{"positive", pos / sum}, {"negative", neg / sum}, {"neutral", neu / sum}, {"mixed", mixed / sum},
	}
	for i := range out {
		out[i].Confidence = math.Round(out[i].Confidence*1000) / 1000
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	return out
}
