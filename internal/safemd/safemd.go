package safemd

import (
	"html"
	"regexp"
	"slices"
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
	return out.String()
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
				out.WriteString(neutraliseLinks(openAngle(token)))
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

// Markdown link destinations: inline links and images "](dest", and link
// reference definitions "[label]: dest" at the start of a line. The
// destination is taken up to white space, ")" or ">" as it is written; a
// destination in <...> loses its "<".
var (
	inlineDest    = regexp.MustCompile(`\]\([ \t]*<?`)
	referenceDest = regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]*\]:[ \t]*\n?[ \t]*<?`)
)

func neutraliseLinks(text string) string {
	if !strings.Contains(text, "](") && !strings.Contains(text, "]:") {
		return text
	}
	var b strings.Builder
	last := 0
	var starts []int
	for _, re := range []*regexp.Regexp{inlineDest, referenceDest} {
		for _, m := range re.FindAllStringIndex(text, -1) {
			starts = append(starts, m[1])
		}
	}
	slices.Sort(starts)
	for _, start := range starts {
		if start < last {
			continue
		}
		end := destinationEnd(text, start)
		if end-start >= maxDestination || Dangerous(text[start:end]) {
			b.WriteString(text[last:start])
			b.WriteString("#")
			last = end
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// maxDestination bounds how far a destination is read, so that a text of
// many "](" costs at most this much per "](". A destination longer than
// that is taken for dangerous (its scheme could be hidden behind entities
// of characters a browser drops): its first maxDestination bytes become
// "#", a harmless link whatever follows.
const maxDestination = 4096

// destinationEnd returns where the link destination starting at start
// ends: at white space, ">", or a ")" that closes no "(" of the
// destination (CommonMark allows balanced parentheses in one), and at
// most maxDestination bytes on.
func destinationEnd(text string, start int) int {
	depth := 0
	limit := min(len(text), start+maxDestination)
	for end := start; end < limit; end++ {
		switch text[end] {
		case ' ', '\t', '\r', '\n', '>':
			return end
		case '(':
			depth++
		case ')':
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
