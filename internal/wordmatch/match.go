package wordmatch

// Matcher finds a fixed set of phrases in texts. Make one per goroutine
// (it has a Folder).
type Matcher struct {
	f *Folder
	// words of each phrase, folded; nil for a phrase without words
	phrases [][]string
	// byFirst lists the phrases starting with a word
	byFirst map[string][]int
	longest int
}

// New prepares the phrases; a phrase is known by its index in phrases.
// Phrases without any word (punctuation only, empty) never match.
func New(phrases []string) *Matcher {
	m := &Matcher{f: NewFolder(), phrases: make([][]string, len(phrases)), byFirst: map[string][]int{}}
	for i, p := range phrases {
		words := m.f.Words(p)
		if len(words) == 0 {
			continue
		}
		m.phrases[i] = words
		m.byFirst[words[0]] = append(m.byFirst[words[0]], i)
		m.longest = max(m.longest, len(words))
	}
	return m
}

// Folder is the Folder of the matcher, to fold other things the same way.
func (m *Matcher) Folder() *Folder { return m.f }

// Scan calls hit for every occurrence of every phrase in text, in the
// order of the text. Occurrences may overlap ("new" and "new york" both
// hit in "New York"; "ha ha" hits twice in "ha ha ha").
func (m *Matcher) Scan(text string, hit func(phrase int)) {
	if len(m.byFirst) == 0 {
		return
	}
	if m.longest == 1 {
		// Single words only: no window to keep.
		m.f.Each(text, func(w string, _, _ int) {
			for _, p := range m.byFirst[w] {
				hit(p)
			}
		})
		return
	}
	words := m.f.Words(text)
	for i, w := range words {
		for _, p := range m.byFirst[w] {
			if equalPrefix(words[i:], m.phrases[p]) {
				hit(p)
			}
		}
	}
}

// Count returns how many times each phrase occurs in text, by index.
func (m *Matcher) Count(text string) map[int]int {
	out := map[int]int{}
	m.Scan(text, func(p int) { out[p]++ })
	return out
}

func equalPrefix(words, phrase []string) bool {
	if len(words) < len(phrase) {
		return false
	}
	for i := range phrase {
		if words[i] != phrase[i] {
			return false
		}
	}
	return true
}
