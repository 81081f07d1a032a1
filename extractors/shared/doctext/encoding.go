package doctext

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding names as reported in extractor data.
const (
	UTF8        = "utf-8"
	UTF16LE     = "utf-16le"
	UTF16BE     = "utf-16be"
	Latin1      = "iso-8859-1"
	Windows1252 = "windows-1252"
)

// sniffLen is how much of the start of a file decides its encoding.
const sniffLen = 64 << 10

// Detected is what Detect found at the start of a text.
type Detected struct {
	// Name is one of the encoding names above.
	Name string
	// BOM reports a byte order mark (skipped by the decoder).
	BOM bool
}

// Detect decides the encoding of a text from its first bytes (all of them
// when complete): a byte order mark wins; without one, UTF-16 is
// recognised by its zero bytes (text in Latin script has a zero in every
// other byte), then valid UTF-8 is UTF-8 (a rune cut at the end of an
// incomplete head does not count against it), and anything else is in a
// single-byte code page: the one whose decoding reads most like text of
// one of its languages (guessSingleByte: Western, Central European,
// Cyrillic, Greek or Turkish); Western text is Latin-1, or Windows-1252
// when bytes 0x80-0x9f appear (control codes in Latin-1, curly quotes and
// dashes in Windows-1252, which is what such files really are).
func Detect(head []byte, complete bool) Detected {
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		return Detected{Name: UTF8, BOM: true}
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return Detected{Name: UTF16LE, BOM: true}
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return Detected{Name: UTF16BE, BOM: true}
	}
	if name := utf16Guess(head); name != "" {
		return Detected{Name: name}
	}
	if utf8.Valid(head) || (!complete && validUTF8Prefix(head)) {
		return Detected{Name: UTF8}
	}
	if name := guessSingleByte(head); name != Windows1252 {
		return Detected{Name: name}
	}
	for _, c := range head {
		if c >= 0x80 && c <= 0x9f {
			return Detected{Name: Windows1252}
		}
	}
	return Detected{Name: Latin1}
}

// utf16Guess recognises UTF-16 without a byte order mark: most even (BE)
// or odd (LE) bytes are zero while the others are not.
func utf16Guess(head []byte) string {
	n := len(head) &^ 1
	if n < 4 {
		return ""
	}
	if n > 4096 {
		n = 4096
	}
	var zeroEven, zeroOdd int
	for i := 0; i < n; i += 2 {
		if head[i] == 0 {
			zeroEven++
		}
		if head[i+1] == 0 {
			zeroOdd++
		}
	}
	pairs := n / 2
	switch {
	case zeroOdd*10 >= pairs*7 && zeroEven*10 <= pairs:
		return UTF16LE
	case zeroEven*10 >= pairs*7 && zeroOdd*10 <= pairs:
		return UTF16BE
	}
	return ""
}

// validUTF8Prefix is utf8.Valid allowing a rune cut by the end of b.
func validUTF8Prefix(b []byte) bool {
	if utf8.Valid(b) {
		return true
	}
	for cut := 1; cut <= 3 && cut < len(b); cut++ {
		if utf8.Valid(b[:len(b)-cut]) && !utf8.FullRune(b[len(b)-cut:]) {
			return true
		}
	}
	return false
}

// decoderOf returns the decoder of a detected encoding (nil for UTF-8).
func decoderOf(d Detected) *encoding.Decoder {
	switch d.Name {
	case UTF16LE:
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()
	case UTF16BE:
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()
	case Latin1:
		return charmap.ISO8859_1.NewDecoder()
	case Windows1252:
		return charmap.Windows1252.NewDecoder()
	}
	if cm := singleByteCharmap(d.Name); cm != nil {
		return cm.NewDecoder()
	}
	return nil
}

// NewReader detects the encoding of r from its first 64 KiB and returns a
// reader of its text as UTF-8, without the byte order mark. Invalid UTF-8
// in a file detected as UTF-8 is passed through; callers that keep text
// replace it (Builder does).
func NewReader(r io.Reader) (io.Reader, Detected, error) {
	br := bufio.NewReaderSize(r, sniffLen)
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, Detected{}, err
	}
	d := Detect(head, err == io.EOF)
	if d.BOM {
		skip := 2
		if d.Name == UTF8 {
			skip = 3
		}
		br.Discard(skip)
	}
	dec := decoderOf(d)
	if dec == nil {
		return br, d, nil
	}
	return transform.NewReader(br, dec), d, nil
}

// DecodeBytes returns b as UTF-8 text with its detected encoding.
func DecodeBytes(b []byte) (string, Detected) {
	head := b
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	d := Detect(head, len(head) == len(b))
	if d.BOM {
		if d.Name == UTF8 {
			b = b[3:]
		} else {
			b = b[2:]
		}
	}
	dec := decoderOf(d)
	if dec == nil {
		return string(b), d
	}
	out, err := dec.Bytes(b)
	if err != nil { // only a malformed UTF-16 tail: keep what decoded
		return string(bytes.ToValidUTF8(out, []byte("\uFFFD"))), d
	}
	return string(out), d
}

// DecodeCharset returns b, in the named character set (a MIME or HTML
// label: "iso-8859-2", "windows-1251", "shift_jis"), as UTF-8. An unknown
// or empty label decodes as Detect decides.
func DecodeCharset(b []byte, label string) string {
	if enc := Charset(label); enc != nil {
		if out, err := enc.NewDecoder().Bytes(b); err == nil {
			return string(out)
		}
	}
	s, _ := DecodeBytes(b)
	return s
}

// LooksBinary reports whether decoded text is not text at all: it holds NUL
// characters or more than one control character in 64 (other than tab,
// newlines and form feed) or of invalid sequences, in its first 8 KiB.
func LooksBinary(s string) bool {
	if len(s) > 8<<10 {
		s = Cut(s, 8<<10)
	}
	if s == "" {
		return false
	}
	bad, n := 0, 0
	for _, r := range s {
		n++
		switch {
		case r == 0:
			return true
		case r == utf8.RuneError:
			bad++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != 0x1b:
			bad++
		case r == 0x7f:
			bad++
		}
	}
	return bad*64 > n
}
