package pdf

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "pdf",
		DisplayName:    "PDF Text and Info",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"pdfinfo", "pdftotext", "pdfimages"},
		Accept:         acceptPDF,
		Fields: []extractors.Field{
			{Path: "title", Type: extractors.TypeString, Doc: "document title (Info dictionary or XMP)"},
			{Path: "author", Type: extractors.TypeString, Doc: "author"},
			{Path: "subject", Type: extractors.TypeString, Doc: "subject"},
			{Path: "keywords", Type: extractors.TypeString, Doc: "keywords"},
			{Path: "creator", Type: extractors.TypeString, Doc: "application that created the original document"},
			{Path: "producer", Type: extractors.TypeString, Doc: "application that wrote the PDF"},
			{Path: "created", Type: extractors.TypeDate, Doc: "creation date (RFC 3339)"},
			{Path: "modified", Type: extractors.TypeDate, Doc: "modification date (RFC 3339)"},
			{Path: "page_count", Type: extractors.TypeNumber, Doc: "pages"},
			{Path: "page_width", Type: extractors.TypeNumber, Doc: "width of the first page, points (1/72 inch)"},
			{Path: "page_height", Type: extractors.TypeNumber, Doc: "height of the first page, points"},
			{Path: "pdf_version", Type: extractors.TypeString, Doc: `PDF version ("1.7")`},
			{Path: "encrypted", Type: extractors.TypeBool, Doc: "true when the document is encrypted (owner password: readable, with restrictions)"},
			{Path: "tagged", Type: extractors.TypeBool, Doc: "true for a tagged (structured, accessible) PDF"},
			{Path: "linearized", Type: extractors.TypeBool, Doc: "true when optimised for the web"},
			{Path: "javascript", Type: extractors.TypeBool, Doc: "true when the document holds JavaScript"},
			{Path: "form", Type: extractors.TypeString, Doc: "interactive form: none, AcroForm or XFA"},
			{Path: "scanned", Type: extractors.TypeBool, Doc: "true when at least half of the pages examined are images with little or no text (a scan without OCR text)"},
			{Path: "scanned_pages", Type: extractors.TypeNumber, Doc: "pages examined that look scanned"},
			{Path: "pages_examined", Type: extractors.TypeNumber, Doc: "pages looked at one by one (the first 50 whose text was read)"},
			{Path: "pages.page", Type: extractors.TypeNumber, Doc: "page number, from 1"},
			{Path: "pages.characters", Type: extractors.TypeNumber, Doc: "non-space characters of text on the page"},
			{Path: "pages.images", Type: extractors.TypeNumber, Doc: "images drawn on the page"},
			{Path: "pages.image_coverage", Type: extractors.TypeNumber, Doc: "share of the page the images cover, 0..1"},
			{Path: "text", Type: extractors.TypeText, Doc: "the text in reading order, pages separated by form feeds, at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the document holds more text than was kept"},
		},
		New: func(env extractors.Env) (extractors.Extractor, error) { return &pdfExtractor{run: env.Runner}, nil },
	})
}

func acceptPDF(f extractors.File) bool {
	return extractors.AcceptMIME([]string{"application/pdf", "application/x-pdf"}, "pdf")(f)
}

// Scan detection thresholds (see the package doc).
const (
	scanMaxCharacters = 32
	scanMinCoverage   = 0.5
	// textOutputCap bounds what pdftotext may write before it is killed;
	// the text kept is then cut to doctext.MaxText.
	textOutputCap = 2 << 20
)

type pdfExtractor struct{ run *extractors.Runner }

func (x *pdfExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	inf, err := runPDFInfo(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	data := map[string]any{
		"page_count": inf.Pages, "encrypted": inf.Encrypted, "tagged": inf.Tagged,
		"linearized": inf.Optimized, "javascript": inf.JavaScript,
	}
	for k, v := range map[string]string{"title": inf.Title, "author": inf.Author, "subject": inf.Subject,
		"keywords": inf.Keywords, "creator": inf.Creator, "producer": inf.Producer, "created": inf.Created,
		"modified": inf.Modified, "pdf_version": inf.Version, "form": inf.Form} {
		if v != "" {
			data[k] = v
		}
	}
	if size, ok := inf.PageSizes[1]; ok {
		data["page_width"], data["page_height"] = size[0], size[1]
	}

	out, err := x.run.Run(ctx, extractors.Cmd{Name: "pdftotext", Heavy: true,
		Args:      []string{"-enc", "UTF-8", "-eol", "unix", argPath(in.Path), "-"},
		MaxOutput: textOutputCap, MaxMemory: 2 << 30})
	cut := false
	if errors.Is(err, extractors.ErrOutputLimit) {
		cut, err = true, nil
	}
	if err != nil {
		return nil, toolError("pdftotext", err)
	}
	pages := splitPages(string(out), cut)
	text := doctext.NewBuilder(doctext.MaxText)
	for i, p := range pages {
		if i > 0 {
			text.WriteString("\f")
		}
		text.WriteString(p)
	}
	if cut {
		text.MarkTruncated()
	}
	text.Put(data)

	if inf.Pages > 0 && len(pages) > 0 {
		if err := x.examine(ctx, in, inf, pages, cut, data); err != nil {
			return nil, err
		}
	}
	return &extractors.Result{Data: data}, nil
}

// splitPages splits pdftotext output at its form feeds and tidies each
// page (trailing spaces, runs of blank lines). When the output was cut,
// its last page is incomplete and is kept but flagged by the caller.
func splitPages(out string, cut bool) []string {
	out = strings.ToValidUTF8(out, "\uFFFD")
	out = strings.TrimSuffix(out, "\f") // pdftotext ends every page with one
	if out == "" && !cut {
		return []string{""}
	}
	pages := strings.Split(out, "\f")
	for i, p := range pages {
		lines := strings.Split(p, "\n")
		var b strings.Builder
		blank := 0
		for _, l := range lines {
			l = strings.TrimRightFunc(l, unicode.IsSpace)
			if l == "" {
				blank++
				continue
			}
			if b.Len() > 0 {
				if blank > 0 {
					b.WriteString("\n\n")
				} else {
					b.WriteByte('\n')
				}
			}
			blank = 0
			b.WriteString(l)
		}
		pages[i] = b.String()
	}
	return pages
}

// examine looks at the first pages one by one: their characters of text
// and the area their images cover, to tell a scan from a text document.
// Only pages whose text was read whole are examined.
func (x *pdfExtractor) examine(ctx context.Context, in *extractors.Input, inf *info, pages []string, cut bool, data map[string]any) error {
	n := min(len(pages), inf.Pages, examinedPages)
	if cut && n == len(pages) {
		n-- // the last page read is incomplete
	}
	if n <= 0 {
		return nil
	}
	out, err := x.run.Run(ctx, extractors.Cmd{Name: "pdfimages", Heavy: true,
		Args:      []string{"-list", "-f", "1", "-l", strconv.Itoa(n), argPath(in.Path)},
		MaxOutput: 4 << 20, MaxMemory: 2 << 30})
	if errors.Is(err, extractors.ErrOutputLimit) {
		err = nil // thousands of images: the lines read are enough
	}
	if err != nil {
		return toolError("pdfimages", err)
	}
	images := parsePDFImages(string(out))
	var list []any
	scanned := 0
	for i := 0; i < n; i++ {
		page := i + 1
		chars := 0
		for _, r := range pages[i] {
			if !unicode.IsSpace(r) {
				chars++
			}
		}
		img := images[page]
		coverage := 0.0
		if size, ok := inf.PageSizes[page]; ok && img.area > 0 {
			coverage = min(1, img.area/(size[0]*size[1]))
		} else if img.count > 0 && len(inf.PageSizes) == 0 {
			coverage = 1 // no page size known: an image is taken to fill it
		}
		if chars < scanMaxCharacters && img.count > 0 && coverage >= scanMinCoverage {
			scanned++
		}
		list = append(list, map[string]any{"page": page, "characters": chars, "images": img.count,
			"image_coverage": float64(int(coverage*1000+0.5)) / 1000})
	}
	data["pages"] = list
	data["pages_examined"] = n
	data["scanned_pages"] = scanned
	data["scanned"] = scanned > 0 && scanned*2 >= n
	return nil
}

// argPath keeps a path from being read as an option.
func argPath(p string) string {
	if strings.HasPrefix(p, "-") {
		return "." + string(filepath.Separator) + p
	}
	return p
}
