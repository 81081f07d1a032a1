package safemd

import (
	"html"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	xhtml "golang.org/x/net/html"
)

// policy is bluemonday's policy for user generated content; it is safe for
// concurrent use once built.
var policy = bluemonday.UGCPolicy()

// maxDepth bounds how deep the contents of raw-text elements are
// sanitised as markup of their own (each level consumes a start tag).
const maxDepth = 8

// dropContent are the raw-text elements whose contents are code, not text.
var dropContent = map[string]bool{"script": true, "style": true}

// Sanitize returns body with dangerous HTML and link destinations taken
// out (see the package documentation).
func Sanitize(body string) string {
	var out strings.Builder
	out.Grow(len(body))
	sanitize(&out, body, 0)
	return linksOut(out.String())
}

// linksOut neutralises the markdown links of the text that is left once
// the tags and comments are sanitised: dropping "<!---->" or "<x>" from
// "[a](<!---->javascript:x)" makes a link of text that had none.
// Replacing a destination by "#" adds no "<", so no tag comes of it.
func linksOut(html string) string {
	if !strings.Contains(html, "](") && !strings.Contains(html, "]:") {
		return html
	}
	var out strings.Builder
	out.Grow(len(html))
	z := xhtml.NewTokenizer(strings.NewReader(html))
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return out.String()
		}
		if tt == xhtml.TextToken {
			out.WriteString(neutraliseLinks(string(z.Raw())))
		} else {
			out.Write(z.Raw())
		}
	}
}

func sanitize(out *strings.Builder, body string, depth int) {
	if depth > maxDepth {
		return
	}
	z := xhtml.NewTokenizer(strings.NewReader(body))
	raw := "" // the raw-text element whose contents come next
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return
		}
		token := string(z.Raw())
		switch tt {
		case xhtml.TextToken:
			switch {
			case raw == "":
				out.WriteString(openAngle(token))
			case dropContent[raw]:
			default:
				sanitize(out, token, depth+1)
			}
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken, xhtml.EndTagToken:
			name, _ := z.TagName()
			raw = ""
			if tt == xhtml.StartTagToken && isRawText(string(name)) {
				raw = string(name)
			}
			out.WriteString(policy.Sanitize(token))
		}
		// Comments and doctypes are dropped.
	}
}

// openAngle escapes a "<" that ends a text token: the tokenizer saw no
// tag there, but once the tag or comment after it is dropped, the "<"
// and the text after that could read as one ("<<a>img onerror=...").
func openAngle(text string) string {
	if t, ok := strings.CutSuffix(text, "<"); ok {
		return t + "&lt;"
	}
	return text
}

// isRawText: the elements after whose start tag the tokenizer reads text
// up to the matching end tag (HTML's raw text and RCDATA elements).
func isRawText(name string) bool {
	switch name {
	case "iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title", "xmp":
		return true
	}
	return false
}

// neutraliseLinks replaces by "#" the destinations of markdown links,
// images and link reference definitions in text that are dangerous (or
// too long to judge). A destination is looked for after every "](" (inline
// link or image) and every "]:" (reference definition; anywhere, not only
// at the start of a line, since blockquote and list markers, indentation
// and labels over several lines can come before it).
func neutraliseLinks(text string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+1 < len(text); i++ {
		if text[i] != ']' || (text[i+1] != '(' && text[i+1] != ':') {
			continue
		}
		start, angle := destinationStart(text, i+2)
		end := destinationEnd(text, start, angle)
		if end-start >= maxDestination || Dangerous(text[start:end]) {
			b.WriteString(text[last:start])
			b.WriteString("#")
			last = end
			i = end - 1
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// destinationStart skips what may come between "](" or "]:" and the
// destination: white space with line endings (CommonMark allows spaces
// and tabs with one line ending, older renderers any white space) and the
// blockquote markers of a quoted paragraph continued on the next line
// ("> [a](\n> javascript:x)"). Skipping more line endings, or a ">"
// where CommonMark would not, only makes a harmless text look like a
// link. A destination in <...> starts after its "<" (angle is true).
func destinationStart(text string, i int) (start int, angle bool) {
	for ; i < len(text); i++ {
		switch text[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', '>':
			continue
		case '<':
			return i + 1, true
		}
		break
	}
	return i, false
}

// maxDestination bounds how far a destination is read, so that a text of
// many "](" costs at most this much per "](". A destination longer than
// that is taken for dangerous (its scheme could be hidden behind entities
// of characters a browser drops): its first maxDestination bytes become
// "#", a harmless link whatever follows.
const maxDestination = 4096

// destinationEnd returns where the link destination starting at start
// ends, at most maxDestination bytes on. One in <...> ends at ">" or "<"
// (white space inside it is part of it); any other at white space, ">",
// or a ")" that closes no "(" of the destination (CommonMark allows
// balanced parentheses in one).
func destinationEnd(text string, start int, angle bool) int {
	depth := 0
	limit := min(len(text), start+maxDestination)
	for end := start; end < limit; end++ {
		c := text[end]
		switch {
		case c == '<' || c == '>':
			return end
		case angle:
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f':
			return end
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return end
			}
			depth--
		}
	}
	return limit
}

var backslashEscape = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)

// Dangerous reports whether a link destination, as written in markdown,
// is a URL of a scheme that runs code or embeds content (javascript:,
// vbscript:, data:, file:) once decoded the way a renderer and a browser
// decode it.
func Dangerous(dest string) bool {
	d := html.UnescapeString(backslashEscape.ReplaceAllString(dest, "$1"))
	// Browsers drop ASCII tabs and newlines anywhere in a URL and leading
	// control characters and spaces; dropping every control character and
	// space here errs on the safe side.
	d = strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, d)
	d = strings.ToLower(d)
	for _, scheme := range []string{"javascript:", "vbscript:", "data:", "file:"} {
		if strings.HasPrefix(d, scheme) {
			return true
		}
	}
	return false
}
