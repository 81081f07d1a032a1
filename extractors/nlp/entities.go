package nlp

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/extractors/shared/gazetteer"
)

// Entity types.
const (
	Person       = "person"
	Place        = "place"
	Organization = "organization"
)

// Entity is a name found in a text, its type and how often it appears.
type Entity struct {
	Name        string
	Type        string
	Appearances int
}

// Recognizer finds the people, places and organisations a text names,
// with a heuristic rather than a trained model: capitalised phrases, typed
// by the words around and inside them (a title before a person's name, a
// suffix ending an organisation's, a preposition before a place), by a
// list of given names, and by a gazetteer of places (the countries,
// regions and cities of extractors/shared/gazetteer). An untyped phrase is dropped:
// the heuristic prefers missing a name to naming a wrong one. It is made
// for languages that capitalise names and not common nouns (English,
// French, Spanish, Italian, Portuguese, Dutch); German capitalises every
// noun, where only the typed cues (places, titles, given names,
// organisation suffixes) find names.
//
// Measured against github.com/jdkato/prose/v2 v2.0.0 (a trained model,
// archived, English) on the same texts, see the package doc.
type Recognizer struct {
	places map[string]string // lower case -> name as written in the gazetteer
}

// NewRecognizer builds the place list from the atlas.
func NewRecognizer(atlas *gazetteer.Atlas) *Recognizer {
	r := &Recognizer{places: map[string]string{}}
	add := func(name string, minLen int) {
		name = strings.TrimSpace(name)
		low := strings.ToLower(name)
		if utf8.RuneCountInString(name) < minLen || genericPlaceWords[low] || commonCapitalised[low] ||
			stopwords["en"][low] || givenNames[low] {
			return
		}
		if _, dup := r.places[low]; !dup {
			r.places[low] = name
		}
	}
	for _, p := range extraPlaces {
		add(p, 2)
	}
	if atlas != nil {
		for _, c := range atlas.Countries {
			add(c.Name, 3)
			for _, o := range c.Other {
				add(o, 4)
			}
		}
		for _, c := range atlas.Cities {
			add(c.Name, 3)
		}
		for _, n := range atlas.Regions {
			add(n, 4)
		}
	}
	return r
}

// span is a run of capitalised words of a sentence.
type span struct {
	words     []string
	atStart   bool   // the first word starts the sentence
	prev      string // the word before, lower case
	personCue bool   // a title stood before it
}

// maxSpanWords bounds a name.
const maxSpanWords = 8

// Entities returns the entities of sentences, the most frequent first, at
// most max. stop is the stop word list of the text's language (nil when
// unknown).
func (r *Recognizer) Entities(sents [][]Token, stop map[string]bool, max int) []Entity {
	if stop == nil {
		stop = stopwords["en"]
	}
	var spans []span
	capsInside := map[string]bool{} // words seen capitalised inside a sentence
	acronyms := map[string]int{}    // words in capitals, and how often
	plain := map[string]bool{}      // words also seen not in capitals
	for _, s := range sents {
		spans = r.spansOf(s, stop, spans)
		for i, t := range s {
			if i > 0 && t.Word && capitalised(t.Text) {
				capsInside[strings.ToLower(bare(t.Text))] = true
			}
			if t.Word && allCaps(t.Text) && utf8.RuneCountInString(t.Text) >= 2 {
				acronyms[strings.ToLower(t.Text)]++
			} else if t.Word {
				plain[strings.ToLower(t.Text)] = true
			}
		}
	}
	type key struct{ name, typ string }
	counts := map[key]int{}
	var order []key
	var pending []span // single words that may be a person's surname
	for w := range plain {
		delete(acronyms, w) // "TERMS" of a heading, "terms" in the text: emphasis, not an acronym
	}
	for _, sp := range spans {
		name, typ := r.classify(sp, acronyms)
		if typ == "" {
			if len(sp.words) == 1 && !(sp.atStart && !capsInside[strings.ToLower(sp.words[0])]) {
				pending = append(pending, sp)
			}
			continue
		}
		k := key{name, typ}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	// "Obama" after "Barack Obama": a lone word that is the last name of
	// exactly one person found counts for that person.
	surname := map[string]string{}
	for _, k := range order {
		if k.typ != Person {
			continue
		}
		parts := strings.Fields(k.name)
		if len(parts) < 2 {
			continue
		}
		last := strings.ToLower(parts[len(parts)-1])
		if prev, dup := surname[last]; dup && prev != k.name {
			surname[last] = "" // ambiguous
		} else {
			surname[last] = k.name
		}
	}
	for _, sp := range pending {
		if full := surname[strings.ToLower(sp.words[0])]; full != "" {
			counts[key{full, Person}]++
		}
	}
	// A lone "Person" key that is a surname folds into the full name.
	for _, k := range order {
		if k.typ == Person && !strings.Contains(k.name, " ") {
			if full := surname[strings.ToLower(k.name)]; full != "" {
				counts[key{full, Person}] += counts[k]
				delete(counts, k)
			}
		}
	}
	out := make([]Entity, 0, len(counts))
	for _, k := range order {
		if n := counts[k]; n > 0 {
			out = append(out, Entity{Name: k.name, Type: k.typ, Appearances: n})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Appearances > out[j].Appearances })
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// spansOf appends the capitalised runs of a sentence to spans.
func (r *Recognizer) spansOf(s []Token, stop map[string]bool, spans []span) []span {
	mostlyCaps := 0
	words := 0
	for _, t := range s {
		if t.Word {
			words++
			if allCaps(t.Text) {
				mostlyCaps++
			}
		}
	}
	if words >= 4 && mostlyCaps*2 > words {
		return spans // a heading in capitals: every word looks like a name
	}
	i := 0
	for i < len(s) {
		t := s[i]
		if !t.Word || !capitalised(t.Text) {
			i++
			continue
		}
		start := i
		var ws []string
		personCue := false
		for i < len(s) && len(ws) < maxSpanWords {
			t := s[i]
			low := strings.ToLower(t.Text)
			switch {
			case t.Word && capitalised(t.Text) && (!stop[low] || titles[low] || len(ws) > 0 && connectors[low]):
				ws = append(ws, bare(t.Text))
				i++
				continue
			case len(ws) > 0 && (t.Word || t.Text == "&") && connectors[low] && (low != "of" || ofHeads[strings.ToLower(ws[len(ws)-1])]) &&
				i+1 < len(s) && s[i+1].Word && capitalised(s[i+1].Text):
				ws = append(ws, t.Text)
				i++
				continue
			}
			break
		}
		if len(ws) == 0 {
			i++
			continue
		}
		prev := ""
		if start > 0 && s[start-1].Word {
			prev = strings.ToLower(s[start-1].Text)
		}
		atStart := start == 0 || (start == 1 && !s[0].Word)
		// Titles before the name: "President Emmanuel Macron".
		for len(ws) > 1 && titles[strings.ToLower(ws[0])] {
			ws = ws[1:]
			personCue = true
			atStart = false
		}
		// Words that only start the sentence: "The", "However", "Monday".
		for len(ws) > 0 && (stop[strings.ToLower(ws[0])] || commonCapitalised[strings.ToLower(ws[0])] && !(nameStarters[strings.ToLower(ws[0])] && len(ws) > 1)) && !personCue {
			ws = ws[1:]
			atStart = false
		}
		for len(ws) > 0 && connectors[strings.ToLower(ws[len(ws)-1])] {
			ws = ws[:len(ws)-1]
		}
		if len(ws) == 0 || (len(ws) == 1 && (titles[strings.ToLower(ws[0])] || commonCapitalised[strings.ToLower(ws[0])])) {
			continue
		}
		spans = append(spans, span{words: ws, atStart: atStart, prev: prev, personCue: personCue})
	}
	return spans
}

// bare drops a possessive ending ("Obama's").
func bare(w string) string {
	for _, suf := range []string{"'s", "’s", "'", "’"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf) {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

// classify types a span, returning its name as shown; "" type when
// nothing says what it is.
func (r *Recognizer) classify(sp span, acronyms map[string]int) (string, string) {
	name := strings.Join(sp.words, " ")
	low := strings.ToLower(name)
	first, last := strings.ToLower(sp.words[0]), strings.ToLower(sp.words[len(sp.words)-1])
	n := len(sp.words)
	if orgSuffixes[last] && n >= 2 {
		return name, Organization
	}
	if sp.personCue && n <= 3 && !placeSuffixes[last] {
		return name, Person
	}
	if n == 1 && allCaps(name) && utf8.RuneCountInString(name) >= 2 {
		if p, ok := placeAcronyms[low]; ok {
			return p, Place
		}
		if knownAcronyms[low] || (acronyms[low] >= 2 && !notOrgAcronyms[low] && utf8.RuneCountInString(name) <= 5) {
			return name, Organization
		}
		if _, ok := r.places[low]; !ok {
			return "", ""
		}
	}
	if orgHeads[first] && n >= 3 && strings.Contains(low, " of ") || orgFirst[first] && n >= 2 || knownOrganizations[low] {
		return name, Organization
	}
	if p, ok := r.places[low]; ok {
		return p, Place
	}
	if n >= 2 && (placeSuffixes[last] || placeHeads[first]) {
		return name, Place
	}
	if n >= 2 && n <= 4 && givenNames[first] {
		return name, Person
	}
	if (sp.prev == "in" || sp.prev == "near") && n <= 3 && !sp.atStart {
		return name, Place
	}
	return "", ""
}
