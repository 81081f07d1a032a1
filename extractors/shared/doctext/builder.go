package doctext

import (
	"strings"
	"unicode/utf8"
)

// MaxText is the most text one extractor reports for one file, in bytes of
// UTF-8. The search document indexes 256 KiB of text per item (all
// extractors together), so more would be stored and never found.
const MaxText = 256 << 10

// Builder collects the text of a document up to a cap. Writes past the cap
// are dropped (cut on a rune boundary) and mark the text truncated, so a
// parser can keep walking a document for its other facts (counts, names)
// without the text growing.
type Builder struct {
	b         strings.Builder
	max       int
	truncated bool
	// partial holds the start of a rune cut by the end of the last Write.
	partial []byte
}

// NewBuilder returns a Builder keeping at most max bytes (MaxText when
// max <= 0).
func NewBuilder(max int) *Builder {
	if max <= 0 {
		max = MaxText
	}
	return &Builder{max: max}
}

// WriteString appends s, or what fits of it. It never fails; the error is
// there for io.StringWriter.
func (t *Builder) WriteString(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	room := t.max - t.b.Len()
	if room <= 0 {
		t.truncated = true
		return len(s), nil
	}
	if len(s) > room {
		t.truncated = true
		s = Cut(s, room)
	}
	t.b.WriteString(s)
	return len(s), nil
}

// Write is WriteString for bytes (io.Writer), so that a Builder can be the
// end of a copy: a rune cut between two writes is joined again, invalid
// UTF-8 is replaced.
func (t *Builder) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.partial) > 0 {
		p = append(t.partial, p...)
		t.partial = nil
	}
	// Keep back an incomplete rune at the end (at most 3 bytes).
	for cut := 1; cut <= 3 && cut <= len(p); cut++ {
		c := p[len(p)-cut]
		if utf8.RuneStart(c) {
			if c >= 0x80 && !utf8.FullRune(p[len(p)-cut:]) {
				t.partial = append([]byte(nil), p[len(p)-cut:]...)
				p = p[:len(p)-cut]
			}
			break
		}
	}
	t.WriteString(strings.ToValidUTF8(string(p), "\uFFFD"))
	return n, nil
}

// Separate writes sep unless the text is empty or already ends with it: a
// paragraph break between blocks that does not pile up.
func (t *Builder) Separate(sep string) {
	if t.b.Len() > 0 && !strings.HasSuffix(t.b.String(), sep) {
		t.WriteString(sep)
	}
}

// Len is the number of bytes kept.
func (t *Builder) Len() int { return t.b.Len() }

// Full reports whether nothing more will be kept.
func (t *Builder) Full() bool { return t.b.Len() >= t.max }

// Truncated reports whether text was dropped.
func (t *Builder) Truncated() bool { return t.truncated }

// MarkTruncated records that the source had text the builder never saw
// (a reader stopped at its own cap).
func (t *Builder) MarkTruncated() { t.truncated = true }

// String is the text kept, trimmed of surrounding white space.
func (t *Builder) String() string { return strings.TrimSpace(t.b.String()) }

// Put stores the text in data under "text" (when not empty) and
// "text_truncated" (only when true), the names every document extractor
// declares.
func (t *Builder) Put(data map[string]any) {
	if s := t.String(); s != "" {
		data["text"] = s
	}
	if t.truncated {
		data["text_truncated"] = true
	}
}

// Cut returns the longest prefix of s of at most n bytes that does not
// split a character (n <= 0: ""): the one way the extractors bound the
// text they keep.
func Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Clip returns s cut to at most n bytes on a rune boundary, for short
// values (titles, names) taken from untrusted files.
func Clip(s string, n int) string {
	return strings.TrimSpace(Cut(strings.ToValidUTF8(s, "\uFFFD"), n))
}
