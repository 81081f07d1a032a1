package wordmatch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Folder cuts text into folded words. It holds transformers with state:
// one Folder per goroutine.
type Folder struct {
	t transform.Transformer // made for the first word outside ASCII
}

// NewFolder returns a Folder. It is cheap: the transformers (a few buffers
// of 4 KiB) are made only when a word outside ASCII comes.
func NewFolder() *Folder {
	return &Folder{}
}

// Fold folds one word: decomposed, without accents, case-folded. ASCII
// words, most of them, take a short way.
func (f *Folder) Fold(word string) string {
	ascii := true
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(word)
	}
	if f.t == nil {
		// Decomposed again after case folding: a folded letter may carry
		// an accent again, and folding must give the same words twice
		// over.
		noMarks := func() transform.Transformer { return runes.Remove(runes.In(unicode.Mn)) }
		f.t = transform.Chain(norm.NFKD, noMarks(), cases.Fold(), norm.NFKD, noMarks())
	}
	out, _, err := transform.String(f.t, word)
	if err != nil {
		return strings.ToLower(word) // invalid UTF-8 that the chain refused
	}
	return out
}

// isWordRune says whether r belongs to a word.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// Each calls fn with each folded word of text, in order, and the byte
// offsets of the word in text.
func (f *Folder) Each(text string, fn func(word string, start, end int)) {
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f.emit(text, start, i, fn)
			start = -1
		}
	}
	if start >= 0 {
		f.emit(text, start, len(text), fn)
	}
}

// emit folds the word text[start:end]. Folding can turn a word into
// several ("¼" is "1⁄4") or none (a lone accent): each word of the folded
// form is emitted with the offsets of the whole.
func (f *Folder) emit(text string, start, end int, fn func(string, int, int)) {
	w := f.Fold(text[start:end])
	from := -1
	for i, r := range w {
		if isWordRune(r) {
			if from < 0 {
				from = i
			}
			continue
		}
		if from >= 0 {
			fn(w[from:i], start, end)
			from = -1
		}
	}
	if from >= 0 {
		fn(w[from:], start, end)
	}
}

// Words returns the folded words of text.
func (f *Folder) Words(text string) []string {
	var out []string
	f.Each(text, func(w string, _, _ int) { out = append(out, w) })
	return out
}

// Key is the folded form of a phrase, its words joined by single spaces:
// two phrases with the same key find the same text ("Café" and "CAFE").
// A phrase without any word has the empty key.
func (f *Folder) Key(phrase string) string {
	return strings.Join(f.Words(phrase), " ")
}
