package safemd

import (
	"regexp"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

func TestSanitizeKeepsMarkdown(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"",
		"plain words",
		"# Title\n\n> a quote\n\n- one\n- two\n\n`a < b && c > d`\n\n```\nif x < 3 { y() }\n```\n",
		"**bold** _it_ [site](https://example.com \"title\") ![img](http://example.com/a.png)",
		"[ref]: https://example.com/x\n\nsee [the ref][ref]",
		"5 < 6 and 7 > 2 & so on; &amp; stays",
		"time 00:01:02:03 — ünïcödé",
		"mail [me](mailto:a@example.com)",
	} {
		if got := Sanitize(in); got != in {
			t.Errorf("Sanitize(%q) = %q, want it unchanged", in, got)
		}
	}
}

func TestSanitizeStripsDangerousHTML(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"hi <script>alert(1)</script> there", "hi  there"},
		{"<SCRIPT SRC=//x.example/a.js></SCRIPT>ok", "ok"},
		{"<style>body{display:none}</style>text", "text"},
		{`<img src="x.png" onerror="alert(1)">`, `<img src="x.png">`},
		// Tags are sanitised one by one: the end tag of a dropped link stays.
		{`<a href="javascript:alert(1)">x</a>`, `x</a>`},
		{`<a href="jav&#x09;ascript:alert(1)">x</a>`, `x</a>`},
		{`<a href="https://example.com" onclick="steal()">x</a>`, `<a href="https://example.com" rel="nofollow">x</a>`},
		{`<img src="data:image/png;base64,AAAA">`, ``},
		{`<iframe src="https://evil.example"></iframe>after`, `after`},
		{`<textarea><img src=x onerror=alert(1)></textarea>`, `<img src="x">`},
		// The browser ends noscript where the tokenizer does: the img is a tag.
		{`<noscript><p title="</noscript><img src=x onerror=alert(1)>">`, `<img src="x">">`},
		{"<!-- hidden --><b>bold</b>", "<b>bold</b>"},
		{"<svg><script>alert(1)</script></svg>x", "x"},
		{"<javascript:alert(1)>", ""},
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSanitizeNeutralisesMarkdownLinks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"[click](javascript:alert(1))", "[click](#)"},
		{"[click]( JavaScript:alert(1) )", "[click]( # )"},
		{"[click](<javascript:alert(1)>)", "[click]()"}, // an HTML tag to bluemonday
		{"[x](&#106;avascript:alert(1))", "[x](#)"},
		{"[x](java&#x09;script:alert(1))", "[x](#)"},
		{`[x](javascript\:alert(1))`, "[x](#)"},
		{"![pic](data:image/svg+xml;base64,PHN2Zz4=)", "![pic](#)"},
		{"[v](vbscript:msgbox)", "[v](#)"},
		{"[f](file:///etc/passwd)", "[f](#)"},
		{"[ref]: javascript:alert(1)\n\n[go][ref]", "[ref]: #\n\n[go][ref]"},
		{"  [ref]:\n   data:text/html,x", "  [ref]:\n   #"},
		{"[ok](https://example.com) and [bad](javascript:x)", "[ok](https://example.com) and [bad](#)"},
		{"[b](" + strings.Repeat("&#x09;", 700) + "javascript:alert(1))", "[b](#" + strings.Repeat("&#x09;", 700)[maxDestination:] + "javascript:alert(1))"},
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// CommonMark allows white space with one line ending between "(" or "]:"
// and the destination, a destination in <...>, a title after it, and a
// reference definition inside a blockquote or a list item; the text left
// once tags and comments are dropped is what a renderer reads.
func TestSanitizeNeutralisesEveryFormOfDestination(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		// A line ending (and white space) before the destination.
		{"[a](\njavascript:alert(1))", "[a](\n#)"},
		{"[a](\r\njavascript:alert(1))", "[a](\r\n#)"},
		{"[a](\rjavascript:alert(1))", "[a](\r#)"},
		{"[a]( \n  javascript:alert(1))", "[a]( \n  #)"},
		{"[a](\t\n\tjavascript:alert(1))", "[a](\t\n\t#)"},
		{"[a](\v\fjavascript:alert(1))", "[a](\v\f#)"},
		{"![a](\n data:text/html,x)", "![a](\n #)"},
		{"> [a](\n> javascript:alert(1))", "> [a](\n> #)"},
		{"> > [a](\n> >   javascript:alert(1))", "> > [a](\n> >   #)"},
		{"- [a](\n  javascript:alert(1))", "- [a](\n  #)"},
		// Titles after the destination.
		{"[a](javascript:alert(1) \"t\")", "[a](# \"t\")"},
		{"[a](\njavascript:alert(1)\n'title')", "[a](\n#\n'title')"},
		{"[a](\tjavascript:alert(1)\t(t))", "[a](\t#\t(t))"},
		// Destinations in <...>: white space inside is part of them.
		{"[a](< javascript:alert(1)>)", "[a](<#>)"},
		{"[a](<\tjavascript:alert(1)> \"t\")", "[a](<#> \"t\")"},
		{"[a](\n< JaVaScRiPt:alert(1)>)", "[a](\n<#>)"},
		{"[a](\n<javascript:alert(1)>)", "[a](\n)"}, // an HTML tag to bluemonday
		{"[a](< https://example.com/a b>)", "[a](< https://example.com/a b>)"},
		// Entities, case, tabs and newlines in the scheme.
		{"[a](javascript&#58;alert(1))", "[a](#)"},
		{"[a](javascript&colon;alert(1))", "[a](#)"},
		{"[a](javascript&#x3A;alert(1))", "[a](#)"},
		{"[a](&#x6A;avascript&#x3a;alert(1))", "[a](#)"},
		{"[a](JAVASCRIPT:alert(1))", "[a](#)"},
		{"[a](\nVbScRiPt:msgbox)", "[a](\n#)"},
		{"[a](java&#x0A;script:alert(1))", "[a](#)"},
		{"[a](&#10;javascript:alert(1))", "[a](#)"},
		{"[a](&Tab;javascript:alert(1))", "[a](#)"},
		// Reference definitions wherever a renderer takes them.
		{"> [r]: javascript:alert(1)\n>\n> [go][r]", "> [r]: #\n>\n> [go][r]"},
		{"- [r]: javascript:alert(1)", "- [r]: #"},
		{"1.  [r]:\n    data:text/html,x", "1.  [r]:\n    #"},
		{"[multi\nline]: javascript:alert(1)", "[multi\nline]: #"},
		{"[r]:\r\n  javascript:alert(1) \"t\"", "[r]:\r\n  # \"t\""},
		{"[r]: < javascript:alert(1)>", "[r]: <#>"},
		{"    [r]: javascript:alert(1)", "    [r]: #"},
		// Dropped tags and comments join the text around them.
		{"[a](<!-- x -->javascript:alert(1))", "[a](#)"},
		{"[a](<x>javascript:alert(1))", "[a](#)"},
		{"[a](java<!---->script:alert(1))", "[a](#)"},
		{"[a]<!---->(javascript:alert(1))", "[a](#)"},
		{"[r]<x>: javascript:alert(1)", "[r]: #"},
		{"[a](\n<script>x</script>javascript:alert(1))", "[a](\n#)"},
		// Safe ones stay.
		{"[a](\nhttps://example.com)", "[a](\nhttps://example.com)"},
		{"[r]:\n  https://example.com \"t\"", "[r]:\n  https://example.com \"t\""},
		{"[a](<> \"javascript:x\")", "[a](<> \"javascript:x\")"},
		{"a [note]: javascripting is fun", "a [note]: javascripting is fun"},
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// safe checks what a browser would find in s once a markdown renderer
// let its HTML through: no executable element, no event handler, no
// dangerous URL in an attribute or a markdown link.
func safe(t *testing.T, in, s string) {
	t.Helper()
	z := xhtml.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			break
		}
		switch tt {
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "iframe", "object", "embed", "svg", "math", "form", "base", "meta", "link":
				t.Fatalf("Sanitize(%q) = %q keeps <%s>", in, s, tok.Data)
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") || a.Key == "style" {
					t.Fatalf("Sanitize(%q) = %q keeps attribute %s", in, s, a.Key)
				}
				if (a.Key == "href" || a.Key == "src" || a.Key == "action" || a.Key == "formaction") && Dangerous(a.Val) {
					t.Fatalf("Sanitize(%q) = %q keeps %s=%q", in, s, a.Key, a.Val)
				}
			}
		case xhtml.TextToken:
			for _, dest := range linkDestinations(string(z.Raw())) {
				if Dangerous(dest) {
					t.Fatalf("Sanitize(%q) = %q keeps a link to %q", in, s, dest)
				}
			}
		}
	}
}

// looseDestination is a looser reading of a link destination than the
// sanitiser's, written apart from it: after "](" or "]:", any white space,
// ">" and "<", then up to white space, a parenthesis, "<" or ">" (or, in
// <...>, up to the ">").
var looseDestination = regexp.MustCompile(`^\][(:][\s\v>]*(?:<([^<>]*)|([^\s\v()<>]*))`)

// linkDestinations returns what could be a link destination after each
// "](" and "]:" of text.
func linkDestinations(text string) []string {
	var out []string
	for i := strings.Index(text, "]"); i >= 0; {
		if m := looseDestination.FindStringSubmatch(text[i:]); m != nil {
			out = append(out, m[1]+m[2])
		}
		next := strings.Index(text[i+1:], "]")
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

func TestSanitizeOutputIsSafe(t *testing.T) {
	t.Parallel()
	for _, in := range seeds {
		safe(t, in, Sanitize(in))
	}
}

var seeds = []string{
	"", "plain", "<script>x</script>", "<img src=x onerror=alert(1)>", "[a](javascript:x)",
	"<a href=javascript:x>a</a>", "<plaintext><img src=x onerror=y>", "<title><script>x</script></title>",
	"<xmp><svg onload=x></xmp>", "[r]: data:x", "<<script>script>alert(1)<</script>/script>",
	"<scr<script>ipt>alert(1)</script>", "<a href=\"&#0000106avascript:x\">x</a>", "``<script>``",
	"<noembed><noframes><iframe><img src=x onerror=1>", "<p style=\"x:expression(alert(1))\">p</p>",
	"[a](\njavascript:x)", "> [a](\r\n> <\tjavascript:x>)", "[r]<!---->:\n data:x", "[a](<b>javascript:x)",
}

func FuzzSanitize(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		safe(t, in, out)
		// Sanitising again changes nothing that matters: still safe.
		safe(t, out, Sanitize(out))
	})
}
