package storage

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestEscapeNameRoundTrip: every byte string has one escape, valid UTF-8,
// whose unescaping is the string again; UTF-8 names without runes of the
// escape range are their own escape; and a second spelling of a name (an
// escaped byte that was valid UTF-8) is refused.
func TestEscapeNameRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', '/', '.', 0x80, 0xbf, 0xc3, 0xa9, 0xe9, 0xf4, 0x8f, 0xbe, 0xbf, 0xff, 0xed, 0xa0}
	cases := []string{"", "plain.txt", "café/crème.txt", "caf\xe9.txt", "\xff\xfe", "\U0010FF80", "\U0010FFFF x",
		"\xf4\x8f\xbf", "\xed\xa0\x80", "日本語\xe9"}
	for range 5000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, raw := range cases {
		esc := escapeName(raw)
		if !utf8.ValidString(esc) {
			t.Fatalf("%q: escape %q is not UTF-8", raw, esc)
		}
		back, ok := unescapePath(esc)
		if !ok || back != raw {
			t.Fatalf("%q: escape %q unescapes to %q, %v", raw, esc, back, ok)
		}
		if utf8.ValidString(raw) && !hasEscapes(raw) && esc != raw {
			t.Fatalf("%q: a UTF-8 name escaped to %q", raw, esc)
		}
	}
	if got := escapeName("caf\xe9.txt"); got != "caf\U0010FFE9.txt" {
		t.Fatalf("escape of a Latin-1 é: %q", got)
	}
	// "é" is C3 A9: spelled as two escaped bytes it names the file "é",
	// which the tree lists as "é".
	if _, ok := unescapePath("\U0010FFC3\U0010FFA9"); ok {
		t.Fatal("a second spelling of é accepted")
	}
	if _, ok := unescapePath("bad\xff"); ok {
		t.Fatal("a path that is not UTF-8 accepted")
	}
}
