package nlp

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token is a word or a mark of punctuation of a sentence.
type Token struct {
	Text string
	// Word is true for words (letters and digits, with inner apostrophes,
	// hyphens and the dots of abbreviations); false for punctuation, which
	// ends phrases and names.
	Word bool
}

// Sentences cuts text into sentences of tokens. A sentence ends at . ! ?
// or … followed by a space and not closing a known abbreviation or an
// initial, at a blank line, and at a tab or a | (cells of a table are
// not read as one sentence).
func Sentences(text string) [][]Token {
	var out [][]Token
	var cur []Token
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			j := i + size
			for j < len(text) && (text[j] == ' ' || text[j] == '\r' || text[j] == '\t') {
				j++
			}
			if j < len(text) && text[j] == '\n' {
				flush()
			}
			i += size
		case r == '\t' || r == '|':
			flush()
			i += size
		case unicode.IsSpace(r):
			i += size
		case isWordRune(r):
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if isWordRune(r2) {
					j += s2
					continue
				}
				// Inner ' - . and ’ join when a letter or digit follows
				// ("don't", "e-mail", "U.S.", "3.5").
				if (r2 == '\'' || r2 == '’' || r2 == '-' || r2 == '.') && j+s2 < len(text) {
					r3, _ := utf8.DecodeRuneInString(text[j+s2:])
					if isWordRune(r3) && (r2 != '.' || isAbbrevDot(text[i:j], r3)) {
						j += s2
						continue
					}
				}
				break
			}
			word := text[i:j]
			// A dot closing an abbreviation ("Mr.", "U.S.") is part of it.
			if j < len(text) && text[j] == '.' && isAbbreviation(word) {
				cur = append(cur, Token{Text: word, Word: true})
				i = j + 1
				// "Inc." and "Co." may also end a sentence: when a capital
				// follows. A title ("Dr.") or an initial never does.
				if !prefixAbbreviations[strings.ToLower(word)] && utf8.RuneCountInString(word) > 1 && capitalAfterSpace(text[i:]) {
					cur = append(cur, Token{Text: "."})
					flush()
				}
				continue
			}
			cur = append(cur, Token{Text: word, Word: true})
			i = j
		default:
			cur = append(cur, Token{Text: string(r)})
			i += size
			if r == '.' || r == '!' || r == '?' || r == '…' || r == '。' || r == '！' || r == '？' {
				if i >= len(text) || text[i] == ' ' || text[i] == '\n' || text[i] == '"' || text[i] == '\'' || r >= 0x3000 {
					flush()
				}
			}
		}
		if len(cur) > maxSentenceTokens {
			flush() // a run without full stops (a table, a list): read as pieces
		}
	}
	flush()
	return out
}

// maxSentenceTokens bounds a sentence (the scoring of phrases and the
// sentiment are per sentence).
const maxSentenceTokens = 200

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// isAbbrevDot says whether a dot inside a word joins it: between digits
// (3.5) or after single letters (U.S.A).
func isAbbrevDot(before string, next rune) bool {
	last, _ := utf8.DecodeLastRuneInString(before)
	if unicode.IsDigit(last) && unicode.IsDigit(next) {
		return true
	}
	seg := before
	if k := strings.LastIndexByte(before, '.'); k >= 0 {
		seg = before[k+1:]
	}
	return utf8.RuneCountInString(seg) == 1 && unicode.IsUpper(last) && unicode.IsUpper(next)
}

// abbreviations end with a dot that does not end a sentence.
var abbreviations = setOf("mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "inc", "ltd", "co", "corp",
	"vs", "etc", "eg", "ie", "no", "mt", "ft", "gen", "col", "capt", "lt", "sgt", "gov", "sen", "rep",
	"rev", "hon", "pres", "dept", "univ", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
	"oct", "nov", "dec", "fig", "vol", "approx", "mme", "mlle", "sra", "sr", "hr", "fr")

// prefixAbbreviations come before a name and never end a sentence.
var prefixAbbreviations = setOf("mr", "mrs", "ms", "dr", "prof", "st", "mt", "gen", "col", "capt", "lt", "sgt",
	"gov", "sen", "rep", "rev", "hon", "pres", "mme", "mlle", "sra", "fig", "vol", "no", "vs", "eg", "ie")

// capitalAfterSpace says whether s is spaces then an upper-case letter.
func capitalAfterSpace(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	if len(t) == len(s) || t == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(r)
}

func isAbbreviation(word string) bool {
	if strings.Contains(word, ".") { // U.S, e.g
		return true
	}
	if utf8.RuneCountInString(word) == 1 {
		r, _ := utf8.DecodeRuneInString(word)
		return unicode.IsUpper(r) // an initial: "J. Smith"
	}
	return abbreviations[strings.ToLower(word)]
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// capitalised says whether a word starts with an upper-case letter.
func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// allCaps says whether a word has letters and all of them are upper case.
func allCaps(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		}
	}
	return letters > 0
}

// numeric says whether a word has no letter.
func numeric(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return false
		}
	}
	return true
}
