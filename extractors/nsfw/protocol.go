package nsfw

import (
	"fmt"
	"math"
)

// The scores the vision sidecar (extractors/shared/vision) gives a
// picture for the nsfw task.

// Categories are nsfwjs's classes, in a fixed order.
var Categories = []string{"drawing", "hentai", "neutral", "porn", "sexy"}

// Scores are the classifier's probabilities of one picture, by category;
// they add up to 1.
type Scores map[string]float64

// Unsafe is the adult-content score of the picture: the probability of
// the adult categories (porn, hentai and sexy), 0 safe to 1 unsafe.
func (s Scores) Unsafe() float64 {
	return math.Min(1, s["porn"]+s["hentai"]+s["sexy"])
}

// Top is the most probable category.
func (s Scores) Top() string {
	best := ""
	for _, c := range Categories {
		if best == "" || s[c] > s[best] {
			best = c
		}
	}
	return best
}

// ParseScores checks the scores of a sidecar's answer: the five
// categories, each within 0..1, adding up to 1.
func ParseScores(got map[string]float64) (Scores, error) {
	if len(got) != len(Categories) {
		return nil, fmt.Errorf("nsfw sidecar: %d scores, want %d", len(got), len(Categories))
	}
	var sum float64
	out := make(Scores, len(Categories))
	for _, c := range Categories {
		v, ok := got[c]
		if !ok || math.IsNaN(v) || v < 0 || v > 1 {
			return nil, fmt.Errorf("nsfw sidecar: score %s %v", c, v)
		}
		out[c] = v
		sum += v
	}
	// A softmax adds up to 1; the sidecar rounds each to 6 decimals.
	if math.Abs(sum-1) > 0.01 {
		return nil, fmt.Errorf("nsfw sidecar: scores add up to %v", sum)
	}
	return out, nil
}
