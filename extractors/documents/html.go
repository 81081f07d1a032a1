package documents

import (
	"context"
	"errors"
	"io"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "html",
		DisplayName:    "HTML",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptHTML,
		Fields: []extractors.Field{
			{Path: "title", Type: extractors.TypeString, Doc: "the page title"},
			{Path: "description", Type: extractors.TypeString, Doc: `<meta name="description">`},
			{Path: "keywords", Type: extractors.TypeString, Doc: `<meta name="keywords">`},
			{Path: "author", Type: extractors.TypeString, Doc: `<meta name="author">`},
			{Path: "generator", Type: extractors.TypeString, Doc: `<meta name="generator">`},
			{Path: "language", Type: extractors.TypeString, Doc: `the lang attribute of <html>`},
			{Path: "link_count", Type: extractors.TypeNumber, Doc: "links (<a href>)"},
			{Path: "image_count", Type: extractors.TypeNumber, Doc: "images (<img>)"},
			{Path: "text", Type: extractors.TypeText, Doc: "visible text (no script, style or markup), at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the page holds more text than was kept"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) { return htmlExtractor{}, nil },
	})
}

func acceptHTML(f extractors.File) bool {
	return extractors.AcceptMIME([]string{"text/html", "application/xhtml+xml"}, "html", "htm", "xhtml")(f)
}

// Caps of the html extractor: bytes parsed (a larger page is refused:
// tooLarge), and the longest token (a text run or a tag) the tokenizer
// buffers (the page's text ends there, marked truncated).
const (
	htmlMaxBytes = 64 << 20
	htmlMaxToken = 1 << 20
	htmlMaxMeta  = 1024
)

type htmlExtractor struct{}

func (htmlExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	src, err := openSource(in, htmlMaxBytes)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	text := doctext.NewBuilder(doctext.MaxText)
	page, err := readHTML(ctx, src, "", text)
	if rerr := src.Err(); rerr != nil {
		return nil, rerr
	}
	if src.Over() && ctx.Err() == nil {
		return nil, tooLarge(-1, htmlMaxBytes)
	}
	if err != nil {
		return nil, err
	}
	data := page.data()
	text.Put(data)
	return &extractors.Result{Data: data}, nil
}

// htmlPage is what readHTML finds besides the text.
type htmlPage struct {
	title, description, keywords, author, generator, language string
	links, images                                             int
}

func (p htmlPage) data() map[string]any {
	data := map[string]any{"link_count": p.links, "image_count": p.images}
	for k, v := range map[string]string{"title": p.title, "description": p.description, "keywords": p.keywords,
		"author": p.author, "generator": p.generator, "language": p.language} {
		if v != "" {
			data[k] = v
		}
	}
	return data
}

// htmlSkipped are elements whose content is not shown.
var htmlSkipped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Math: true, atom.Object: true, atom.Iframe: true}

// htmlBlocks are elements that break a line of text.
var htmlBlocks = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Tr: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Hr: true,
	atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Pre: true,
	atom.Blockquote: true, atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true,
	atom.Nav: true, atom.Aside: true, atom.Main: true, atom.Figure: true, atom.Figcaption: true,
	atom.Form: true, atom.Address: true, atom.Caption: true, atom.Title: true, atom.Body: true}

// readHTML tokenizes a page (decoded from the charset its bytes, BOM or
// meta declare, or contentType names) into its visible text, written to
// text, and its title, meta data and counts. The tokenizer streams: memory
// holds one token (at most htmlMaxToken bytes) and the stack of skipped
// elements. A read error of r ends the page like its end; callers that
// read a file see it through their source (Err).
func readHTML(ctx context.Context, r io.Reader, contentType string, text *doctext.Builder) (htmlPage, error) {
	var page htmlPage
	decoded, err := charset.NewReader(r, contentType)
	if err != nil {
		decoded = r
	}
	z := html.NewTokenizer(decoded)
	z.SetMaxBuf(htmlMaxToken)
	var (
		skip    []atom.Atom // open skipped elements
		inTitle bool
		title   strings.Builder
		ws      = &spaceCollapser{out: text}
		tokens  int
	)
	for {
		tokens++
		if tokens%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return page, err
			}
		}
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if errors.Is(z.Err(), html.ErrBufferExceeded) {
				text.MarkTruncated()
			}
			page.title = doctext.Clip(collapseSpace(title.String()), htmlMaxMeta)
			return page, nil
		case html.TextToken:
			raw := z.Text()
			switch {
			case inTitle:
				if title.Len() < htmlMaxMeta {
					title.Write(raw)
				}
			case len(skip) == 0:
				ws.write(string(raw))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			var attrs map[string]string
			if hasAttr && (a == atom.Meta || a == atom.A || a == atom.Html) {
				attrs = tagAttrs(z)
			}
			switch a {
			case atom.Title:
				inTitle = tt == html.StartTagToken
			case atom.Meta:
				page.meta(attrs)
			case atom.A:
				if _, ok := attrs["href"]; ok {
					page.links++
				}
			case atom.Img:
				page.images++
			case atom.Html:
				page.language = doctext.Clip(attrs["lang"], 64)
			}
			if htmlSkipped[a] && tt == html.StartTagToken {
				skip = append(skip, a)
			}
			if htmlBlocks[a] {
				ws.block()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Title {
				inTitle = false
			}
			if n := len(skip); n > 0 && skip[n-1] == a {
				skip = skip[:n-1]
			}
			if htmlBlocks[a] {
				ws.block()
			}
		}
	}
}

func tagAttrs(z *html.Tokenizer) map[string]string {
	attrs := map[string]string{}
	for i := 0; i < 64; i++ {
		k, v, more := z.TagAttr()
		if _, seen := attrs[string(k)]; !seen {
			attrs[strings.ToLower(string(k))] = string(v)
		}
		if !more {
			break
		}
	}
	return attrs
}

func (p *htmlPage) meta(attrs map[string]string) {
	name := strings.ToLower(attrs["name"])
	if name == "" {
		name = strings.ToLower(attrs["property"]) // Open Graph
	}
	content := doctext.Clip(collapseSpace(attrs["content"]), htmlMaxMeta)
	if content == "" {
		return
	}
	switch name {
	case "description":
		p.description = content
	case "og:description":
		if p.description == "" {
			p.description = content
		}
	case "keywords":
		p.keywords = content
	case "author":
		p.author = content
	case "generator":
		p.generator = content
	}
}

// spaceCollapser writes text with runs of white space as one space and
// block boundaries as line breaks, as a browser lays text out.
type spaceCollapser struct {
	out       *doctext.Builder
	space     bool // a space is pending
	lineStart bool
}

func (c *spaceCollapser) write(s string) {
	if c.out.Full() {
		if strings.TrimSpace(s) != "" {
			c.out.MarkTruncated()
		}
		return
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsSpace(r) {
			c.space = true
			continue
		}
		if c.space && !c.lineStart && c.out.Len()+b.Len() > 0 {
			b.WriteByte(' ')
		}
		c.space, c.lineStart = false, false
		b.WriteRune(r)
	}
	c.out.WriteString(b.String())
}

func (c *spaceCollapser) block() {
	if c.out.Len() > 0 && !c.lineStart {
		c.out.WriteString("\n")
	}
	c.lineStart, c.space = true, false
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
