package nlp

import (
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// Phrase is a key phrase of a text and how often it appears.
type Phrase struct {
	Name        string
	Appearances int
	Score       float64
}

// maxPhraseWords is the longest key phrase: longer runs without a stop
// word are lists and table rows, not phrases.
const maxPhraseWords = 4

// KeyPhrases ranks the key phrases of sentences with RAKE (Rose et al.,
// "Automatic keyword extraction from individual documents", 2010):
// candidates are the runs of words between stop words and punctuation;
// each word scores its degree (the words it shares candidates with,
// itself included) over its frequency, and a candidate the sum of its
// words. Candidates are ranked by that score times their appearances, so
// that a phrase a document keeps returning to outranks a long one it
// says once. A phrase is shown as it is most often written.
func KeyPhrases(sents [][]Token, stop map[string]bool, max int) []Phrase {
	type cand struct {
		words    []string
		count    int
		surfaces map[string]int
		seen     []string // surfaces in the order met
	}
	cands := map[string]*cand{}
	var order []string
	freq := map[string]int{}
	deg := map[string]int{}
	add := func(run []Token) {
		if len(run) == 0 || len(run) > maxPhraseWords {
			return
		}
		words := make([]string, len(run))
		surface := make([]string, len(run))
		for i, t := range run {
			words[i] = strings.ToLower(t.Text)
			surface[i] = t.Text
		}
		key := strings.Join(words, " ")
		c := cands[key]
		if c == nil {
			c = &cand{words: words, surfaces: map[string]int{}}
			cands[key] = c
			order = append(order, key)
		}
		c.count++
		sf := strings.Join(surface, " ")
		if c.surfaces[sf] == 0 {
			c.seen = append(c.seen, sf)
		}
		c.surfaces[sf]++
		for _, w := range words {
			freq[w]++
			deg[w] += len(words)
		}
	}
	for _, s := range sents {
		var run []Token
		for _, t := range s {
			if !t.Word || stop[strings.ToLower(t.Text)] || numeric(t.Text) || utf8.RuneCountInString(t.Text) < 2 {
				add(run)
				run = run[:0]
				continue
			}
			run = append(run, t)
		}
		add(run)
	}
	out := make([]Phrase, 0, len(cands))
	for _, key := range order {
		c := cands[key]
		var score float64
		for _, w := range c.words {
			score += float64(deg[w]) / float64(freq[w])
		}
		name, best := "", 0
		for _, sf := range c.seen {
			if n := c.surfaces[sf]; n > best {
				name, best = sf, n
			}
		}
		out = append(out, Phrase{Name: name, Appearances: c.count, Score: math.Round(score*100) / 100})
	}
	sort.SliceStable(out, func(i, j int) bool {
		wi, wj := out[i].Score*float64(out[i].Appearances), out[j].Score*float64(out[j].Appearances)
		if wi != wj {
			return wi > wj
		}
		return out[i].Name < out[j].Name
	})
	if len(out) > max {
		out = out[:max]
	}
	return out
}
