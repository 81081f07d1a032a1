package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines keeps the README a front door: what the project is, the two
// commands, the first hour, a picture, and links into docs/.
const readmeMaxLines = 250

// The README and every file of docs/ are read by people who cloned the
// repository, and by nobody else: every relative link must lead to a file
// or folder of the repository, every #anchor to a heading of the file it
// names, and nothing may point outside the clone.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("docs/ has no Markdown file")
	}
	files := append([]string{filepath.Join(root, "README.md")}, docs...)
	for _, p := range checkDocLinks(root, files) {
		t.Error(p)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "../shared/") {
			rel, _ := filepath.Rel(root, f)
			t.Errorf("%s names ../shared/, which a clone does not have: say it in docs/ instead", rel)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail into docs/", n, readmeMaxLines)
	}
}

// The checker finds each kind of broken link (a test of the test: without
// it, a checker that reads no link at all would pass TestDocLinks).
func TestDocLinksFindsBrokenLinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("docs/other.md", "# Other\n\n## The `queue` dashboard: /monitoring\n\n## Twice\n\n## Twice\n")
	write("api/openapi.yaml", "openapi: 3.0.3\n")
	good := write("README.md", strings.Join([]string{
		"# Front",
		"See [other](docs/other.md), [its dashboard](docs/other.md#the-queue-dashboard-monitoring),",
		"[the second](docs/other.md#twice-1), [the spec](api/openapi.yaml \"title\"), [a folder](docs/),",
		"[here](#front), ![a picture](docs/other.md) and [the web](https://example.com/x.md).",
		"[ref]: docs/other.md#other",
		"```",
		"[not a link](nowhere.md) inside a code block",
		"```",
		"Nor is `[this](nowhere.md)` in a code span.",
	}, "\n"))
	if got := checkDocLinks(root, []string{good}); len(got) != 0 {
		t.Errorf("links that resolve reported broken: %q", got)
	}
	bad := write("docs/bad.md", strings.Join([]string{
		"# Bad",
		"[missing](missing.md)",
		"[no such heading](other.md#nowhere)",
		"[outside](../../shared/spec/DECISIONS.md)",
		"![no picture](../web/screenshots/none.png)",
		"[anchor in a non-Markdown file](../api/openapi.yaml#L1)",
		"[no heading here](#elsewhere)",
		"[ref]: gone.md",
	}, "\n"))
	got := checkDocLinks(root, []string{bad})
	want := []string{"missing.md", "other.md#nowhere", "../../shared/spec/DECISIONS.md",
		"../web/screenshots/none.png", "../api/openapi.yaml#L1", "#elsewhere", "gone.md"}
	if len(got) != len(want) {
		t.Fatalf("%d problems, want %d: %q", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.Contains(got[i], "("+w+")") {
			t.Errorf("problem %d is %q, want one about %s", i, got[i], w)
		}
	}
}

var (
	// fence opens or closes a fenced code block.
	fence = regexp.MustCompile("^\\s*(```|~~~)")
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// inlineLink is [text](target) or ![alt](target), with an optional title.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink is a reference definition: [label]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	// scheme marks an absolute URL (https:, mailto:), not checked here.
	scheme  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	heading = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
)

// checkDocLinks returns one problem per relative link of files (Markdown
// files below root) that does not resolve inside root, in order.
func checkDocLinks(root string, files []string) []string {
	var problems []string
	anchors := map[string]map[string]bool{} // Markdown file -> its heading anchors
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		if raw, err := os.ReadFile(path); err == nil {
			a = headingAnchors(string(raw))
		}
		anchors[path] = a
		return a
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		rel, _ := filepath.Rel(root, file)
		for _, l := range markdownLinks(string(raw)) {
			problem := resolveLink(root, file, l.target, anchorsOf)
			if problem != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link (%s): %s", rel, l.line, l.target, problem))
			}
		}
	}
	return problems
}

type docLink struct {
	line   int
	target string
}

// markdownLinks lists the link targets of a Markdown text, outside code
// blocks and code spans.
func markdownLinks(text string) []docLink {
	var links []docLink
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		if m := refLink.FindStringSubmatch(line); m != nil {
			links = append(links, docLink{i + 1, m[1]})
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			links = append(links, docLink{i + 1, m[1]})
		}
	}
	return links
}

// resolveLink says what is wrong with target, a link of file; "" when it
// resolves (or is an absolute URL, which is not checked).
func resolveLink(root, file, target string, anchorsOf func(string) map[string]bool) string {
	if target == "" {
		return "empty target"
	}
	if scheme.MatchString(target) {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	dest := file
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return "absolute path: make it relative to the file"
		}
		dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		if rel, err := filepath.Rel(root, dest); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "outside the repository"
		}
		if _, err := os.Stat(dest); err != nil {
			return "no such file or folder in the repository"
		}
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(dest, ".md") {
		return "an anchor into a file that is not Markdown"
	}
	if !anchorsOf(dest)[anchor] {
		return "no heading with that anchor"
	}
	return ""
}

// headingAnchors are the anchors GitHub gives the headings of a Markdown
// text: the heading's text in lower case, without punctuation, spaces as
// hyphens, and -1, -2 ... after a repeated one.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		title := inlineLink.ReplaceAllStringFunc(m[1], func(s string) string { return s[strings.Index(s, "[")+1 : strings.Index(s, "]")] })
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}
