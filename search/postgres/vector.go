package postgres

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A document's body words are most of its full text, and PostgreSQL's
// to_tsvector(wordsConfig, ...) costs about four times more to make them a
// tsvector than reading the same tsvector as a literal does (measured: 27
// and 6 µs for a small file's body). bodyVector makes the literal in Go
// when every word is ASCII letters and digits, the text of nearly every
// body (paths, types, ids, names): for those words the default parser and
// the simple dictionary do few things, all of them copied here. Other
// bodies go to to_tsvector as before. The engine checks once, against the
// server's own to_tsvector, that the two agree (vectorProbe), since
// lower-casing follows the database's locale.

// wordsConfig is the text search configuration of every word the engine
// indexes or looks for (migration 00016): PostgreSQL's 'simple' with
// unaccent before it for words with letters outside ASCII, so that words
// are found whatever their accents ("cafe" finds "café"). Words of ASCII
// letters and digits read as under 'simple', which bodyVector copies.
const wordsConfig = "metaharvest_words"

// Limits of PostgreSQL's tsvectors: positions stop at 16383, to_tsvector
// keeps the first 255 positions of a lexeme (a tsvector could hold 256)
// and drops words of 2047 bytes or more.
const (
	maxVectorPos    = 1<<14 - 1
	maxLexemePos    = 255
	maxLexemeLength = 1<<11 - 1
)

// vectorToken is one token of a body: its lexeme and position.
type vectorToken struct {
	lexeme string
	pos    int
}

// bodyVector returns the tsvector literal that to_tsvector(wordsConfig, s')
// returns for s' = splitWords(s), or false when s has a word it leaves to
// PostgreSQL (a letter or digit outside ASCII, a word too long, more words
// than positions).
func bodyVector(s string) (string, bool) {
	tokens := make([]vectorToken, 0, 32)
	pos := 0
	add := func(word string) bool {
		if len(word) >= maxLexemeLength || pos >= maxVectorPos {
			return false
		}
		pos++
		tokens = append(tokens, vectorToken{lowerASCII(word), pos})
		return true
	}
	for i := 0; i < len(s); {
		start := i
		for i < len(s) && isASCIIAlnum(s[i]) {
			i++
		}
		if i > start {
			if !addWord(s[start:i], add) {
				return "", false
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return "", false // a letter or digit outside ASCII (splitWords keeps it in a word)
		}
		i += n
	}
	slices.SortFunc(tokens, func(a, b vectorToken) int {
		if c := strings.Compare(a.lexeme, b.lexeme); c != 0 {
			return c
		}
		return a.pos - b.pos
	})
	b := make([]byte, 0, len(s)+3*len(tokens))
	kept := 0
	for i, t := range tokens {
		if i > 0 && t.lexeme == tokens[i-1].lexeme {
			if kept == maxLexemePos {
				continue
			}
			b = append(b, ',')
		} else {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, t.lexeme...)
			b = append(b, ':')
			kept = 0
		}
		b = strconv.AppendInt(b, int64(t.pos), 10)
		kept++
	}
	return string(b), true
}

// addWord adds the tokens the default parser makes of word, a run of ASCII
// letters and digits: one, unless it starts with digits followed by an e
// and a digit, which is a number in scientific notation ("12e3") and the
// rest of the word another token ("12e3x" is "12e3" and "x").
func addWord(word string, add func(string) bool) bool {
	i := 0
	for i < len(word) && isDigit(word[i]) {
		i++
	}
	if i == 0 || i+1 >= len(word) || (word[i] != 'e' && word[i] != 'E') || !isDigit(word[i+1]) {
		return add(word)
	}
	i += 2
	for i < len(word) && isDigit(word[i]) {
		i++
	}
	if !add(word[:i]) {
		return false
	}
	return i == len(word) || add(word[i:])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isASCIIAlnum(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// lowerASCII lower-cases an ASCII word, without a copy when it has no
// capital.
func lowerASCII(w string) string {
	for i := 0; i < len(w); i++ {
		if 'A' <= w[i] && w[i] <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// vectorProbe is a body with what bodyVector copies of PostgreSQL: every
// ASCII letter in both cases, numbers in scientific notation alone and in
// words, digits before letters, repeated words and separators.
const vectorProbe = "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789 " +
	"12e3 12E3x 1e 3b5d9e e3b0 1e5e6 0x1F Xyz9 a/b.c-d_e f@g.h:i;j " +
	"abc ABC Abc abc 007 7"

// bodyVectors tells whether the engine's writes make body vectors in Go:
// whether the server agrees (asked once, and again after an error).
func (e *Engine) bodyVectors(ctx context.Context) (bool, error) {
	if state := e.vectors.Load(); state != vectorsUnknown {
		return state == vectorsAgree, nil
	}
	agree, err := e.bodyVectorsAgree(ctx)
	if err != nil {
		return false, err
	}
	state := int32(vectorsDisagree)
	if agree {
		state = vectorsAgree
	}
	e.vectors.Store(state)
	return agree, nil
}

// The states of Engine.vectors.
const (
	vectorsUnknown = iota
	vectorsAgree
	vectorsDisagree
)

// bodyVectorsAgree tells whether the server's to_tsvector agrees with
// bodyVector on vectorProbe.
func (e *Engine) bodyVectorsAgree(ctx context.Context) (bool, error) {
	lit, ok := bodyVector(vectorProbe)
	if !ok {
		return false, nil
	}
	var agree bool
	err := e.db.QueryRowContext(ctx, `SELECT to_tsvector('`+wordsConfig+`', $1) = $2::tsvector`, splitWords(vectorProbe), lit).Scan(&agree)
	if err != nil {
		return false, wrapErr(fmt.Errorf("check word vectors: %w", err))
	}
	return agree, nil
}
