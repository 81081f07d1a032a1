package captions

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Encodings decodeText reports.
const (
	encUTF8    = "utf-8"
	encUTF16LE = "utf-16le"
	encUTF16BE = "utf-16be"
	encCP1252  = "windows-1252"
)

var errBinary = errors.New("binary content, not a caption file")

// parseDecoded parses the text of a caption file's bytes (decodeText)
// with parse, and records the encoding they were in.
func parseDecoded(b []byte, parse func(text string) (*Parsed, error)) (*Parsed, error) {
	text, enc, err := decodeText(b)
	if err != nil {
		return nil, err
	}
	p, err := parse(text)
	if err != nil {
		return nil, err
	}
	p.Encoding = enc
	return p, nil
}

// decodeText turns the bytes of a caption file into text: UTF-8 (with or
// without its byte-order mark), UTF-16 of either byte order (with a mark,
// or without one when every other byte of the start is zero), and
// otherwise the single-byte Western encoding caption files of Windows tools
// use (Windows-1252: Latin-1 with printable characters where Latin-1 has
// control codes). NUL bytes in a single-byte file mean it is not text.
// Line ends are normalised to "\n".
func decodeText(b []byte) (text, encoding string, err error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		text, encoding = strings.ToValidUTF8(string(b[3:]), "\uFFFD"), encUTF8
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		text, encoding = fromUTF16(b[2:], false), encUTF16LE
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		text, encoding = fromUTF16(b[2:], true), encUTF16BE
	default:
		if le, be := zeroHalves(b); le {
			text, encoding = fromUTF16(b, false), encUTF16LE
		} else if be {
			text, encoding = fromUTF16(b, true), encUTF16BE
		} else if bytes.IndexByte(b, 0) >= 0 {
			return "", "", errBinary
		} else if utf8.Valid(b) {
			text, encoding = string(b), encUTF8
		} else {
			text, encoding = fromCP1252(b), encCP1252
		}
	}
	if strings.IndexByte(text, 0) >= 0 {
		return "", "", errBinary
	}
	return normaliseNewlines(text), encoding, nil
}

// zeroHalves reports UTF-16 without a byte-order mark: in the first bytes,
// text in a Latin script has a zero in (nearly) every odd byte (little
// endian) or every even byte (big endian), and no zero in the other half.
func zeroHalves(b []byte) (le, be bool) {
	n := min(len(b), 512) &^ 1
	if n < 4 {
		return false, false
	}
	var zeroEven, zeroOdd int
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			zeroEven++
		}
		if b[i+1] == 0 {
			zeroOdd++
		}
	}
	pairs := n / 2
	return zeroOdd*10 >= pairs*9 && zeroEven == 0, zeroEven*10 >= pairs*9 && zeroOdd == 0
}

func fromUTF16(b []byte, bigEndian bool) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	return string(utf16.Decode(u)) // unpaired surrogates become U+FFFD
}

// cp1252High maps the bytes 0x80..0x9F of Windows-1252; the unassigned
// ones stay U+FFFD.
var cp1252High = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}

func fromCP1252(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for _, c := range b {
		switch {
		case c < 0x80:
			sb.WriteByte(c)
		case c < 0xA0:
			sb.WriteRune(cp1252High[c-0x80])
		default:
			sb.WriteRune(rune(c)) // Latin-1 is the first 256 code points
		}
	}
	return sb.String()
}

func normaliseNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}
