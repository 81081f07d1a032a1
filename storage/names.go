package storage

import (
	"strings"
	"unicode/utf8"
)

// File names that are not valid UTF-8 (a Latin-1 name from an old archive,
// written by a system that knew no other) cannot be stored, searched or
// returned as JSON as they are, yet they name files to harvest like any
// other. The tree kinds (filesystem, upload store) list them escaped: each
// byte that is not part of valid UTF-8 becomes the rune U+10FF00+byte, in
// plane 16's private use area (bytes 0x80-0xFF: U+10FF80-U+10FFFF), and so
// does each byte of a rune already in that range, so that every escaped
// name stands for one name on disk and back. A path given to the tree is
// unescaped before the OS sees it; a path that is not the escape of its
// unescaping (a second spelling of a name) names nothing. Names that are
// valid UTF-8 without such runes, all but a few, are their own escape.
const (
	escapeBase  = 0x10FF00
	escapeFirst = escapeBase + 0x80 // the escape of byte 0x80
)

// escapeLead is the first byte of every rune in the escape range (U+10FF80
// to U+10FFFF are F4 8F BE 80 to F4 8F BF BF): a name without it holds no
// escaped byte.
const escapeLead = 0xF4

// escapeName is the name as the tree lists it.
func escapeName(raw string) string {
	if utf8.ValidString(raw) && strings.IndexByte(raw, escapeLead) < 0 {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw) + 8)
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRuneInString(raw[i:])
		if r == utf8.RuneError && n == 1 || r >= escapeFirst {
			for _, c := range []byte(raw[i : i+n]) {
				b.WriteRune(escapeBase + rune(c))
			}
		} else {
			b.WriteString(raw[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unescapePath is the name on disk of a listed path (or container name),
// and false when p is not how the tree lists any name.
func unescapePath(p string) (string, bool) {
	if strings.IndexByte(p, escapeLead) < 0 {
		return p, utf8.ValidString(p)
	}
	var b strings.Builder
	b.Grow(len(p))
	for _, r := range p {
		if r >= escapeFirst && r <= utf8.MaxRune {
			b.WriteByte(byte(r - escapeBase))
		} else {
			b.WriteRune(r)
		}
	}
	raw := b.String()
	return raw, escapeName(raw) == p
}

// hasEscapes reports runes of the escape range in p: names a client gives
// for files to be created must not use them (the file would get another
// name on disk than the one asked for).
func hasEscapes(p string) bool {
	for _, r := range p {
		if r >= escapeFirst && r <= utf8.MaxRune {
			return true
		}
	}
	return false
}
