package captions

import (
	"errors"
	"strings"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// encUTF8 is the encoding of text ffmpeg writes.
const encUTF8 = doctext.UTF8

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

// decodeText turns the bytes of a caption file into text as every text
// file is read (doctext.DecodeBytes): UTF-8 (with or without its byte-order
// mark), UTF-16 of either byte order (with a mark, or without one), and
// otherwise the single-byte code page the text reads best in (subtitles of
// Windows tools: Western, Central European, Cyrillic, Greek, Turkish...).
// A NUL character means it is not text. Line ends are normalised to "\n".
func decodeText(b []byte) (text, encoding string, err error) {
	text, d := doctext.DecodeBytes(b)
	if strings.IndexByte(text, 0) >= 0 {
		return "", "", errBinary
	}
	return normaliseNewlines(strings.ToValidUTF8(text, "\uFFFD")), d.Name, nil
}

func normaliseNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}
