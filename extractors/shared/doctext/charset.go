package doctext

import (
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

// Charset returns the encoding of a MIME or HTML charset label, nil when
// the label is empty, unknown, or UTF-8 (nothing to decode). Labels follow
// the WHATWG encoding standard, which maps "iso-8859-1" and "us-ascii" to
// Windows-1252 as browsers and mail readers do.
func Charset(label string) encoding.Encoding {
	label = strings.ToLower(strings.Trim(strings.TrimSpace(label), `"'`))
	if label == "" || label == "utf-8" || label == "utf8" {
		return nil
	}
	enc, err := htmlindex.Get(label)
	if err != nil || enc == unicode.UTF8 {
		return nil
	}
	return enc
}
