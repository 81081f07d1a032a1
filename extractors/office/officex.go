package office

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "officex",
		DisplayName:    "Office Documents",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptOffice,
		Fields: []extractors.Field{
			{Path: "format", Type: extractors.TypeString, Doc: "docx, xlsx, pptx (Office Open XML, macro and template variants included), odt, ods, odp or odg (OpenDocument)"},
			{Path: "title", Type: extractors.TypeString, Doc: "document title property"},
			{Path: "subject", Type: extractors.TypeString, Doc: "subject property"},
			{Path: "description", Type: extractors.TypeString, Doc: "description or comments property"},
			{Path: "keywords", Type: extractors.TypeString, Doc: "keywords property"},
			{Path: "creator", Type: extractors.TypeString, Doc: "author who created the document"},
			{Path: "last_modified_by", Type: extractors.TypeString, Doc: "author of the last change"},
			{Path: "created", Type: extractors.TypeDate, Doc: "creation date (RFC 3339)"},
			{Path: "modified", Type: extractors.TypeDate, Doc: "date of the last change (RFC 3339)"},
			{Path: "application", Type: extractors.TypeString, Doc: "application that wrote the file"},
			{Path: "company", Type: extractors.TypeString, Doc: "company property (Office Open XML)"},
			{Path: "page_count", Type: extractors.TypeNumber, Doc: "pages, as the writing application counted them"},
			{Path: "word_count", Type: extractors.TypeNumber, Doc: "words, as the writing application counted them"},
			{Path: "character_count", Type: extractors.TypeNumber, Doc: "characters, as the writing application counted them"},
			{Path: "sheet_count", Type: extractors.TypeNumber, Doc: "sheets of a spreadsheet"},
			{Path: "sheets", Type: extractors.TypeString, Doc: "sheet names, in order (at most 1000)"},
			{Path: "slide_count", Type: extractors.TypeNumber, Doc: "slides of a presentation"},
			{Path: "slide_titles", Type: extractors.TypeString, Doc: "titles of the slides that have one, in order (at most 1000)"},
			{Path: "text", Type: extractors.TypeText, Doc: "the document's text (paragraphs, cells, slides), at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the document holds more text than was kept"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) { return officeExtractor{}, nil },
	})
}

func acceptOffice(f extractors.File) bool {
	return extractors.AcceptMIME([]string{
		"application/vnd.openxmlformats-officedocument.",
		"application/vnd.ms-word.", "application/vnd.ms-excel.sheet.", "application/vnd.ms-excel.template.",
		"application/vnd.ms-powerpoint.presentation.", "application/vnd.ms-powerpoint.slideshow.", "application/vnd.ms-powerpoint.template.",
		"application/vnd.oasis.opendocument.",
	}, "docx", "docm", "dotx", "dotm", "xlsx", "xlsm", "xltx", "xltm", "pptx", "pptm", "ppsx", "ppsm", "potx", "potm",
		"odt", "ott", "ods", "ots", "odp", "otp", "odg", "otg")(f)
}

// Caps on lists.
const (
	maxListed   = 1000
	maxProperty = 1024
)

type officeExtractor struct{}

func (officeExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	src, err := doctext.OpenAt(in)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	a, err := openArchive(src, src.Size)
	if err != nil {
		return nil, err
	}
	doc := &document{data: map[string]any{}, text: doctext.NewBuilder(doctext.MaxText)}
	switch {
	case a.has("mimetype") || a.has("content.xml"):
		err = readODF(ctx, a, doc)
	case a.has("[Content_Types].xml"):
		err = readOOXML(ctx, a, doc)
	default:
		return nil, errors.New("not an office document: neither Office Open XML nor OpenDocument")
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	doc.text.Put(doc.data)
	return &extractors.Result{Data: doc.data}, nil
}

// document collects what the format readers find.
type document struct {
	data map[string]any
	text *doctext.Builder
}

func (d *document) set(key, value string) {
	if v := doctext.Clip(strings.Join(strings.Fields(value), " "), maxProperty); v != "" {
		d.data[key] = v
	}
}

func (d *document) setCount(key, value string) {
	var n int64
	if _, err := fmt.Sscan(strings.TrimSpace(value), &n); err == nil && n >= 0 {
		d.data[key] = n
	}
}

func (d *document) setDate(key, value string) {
	if t, ok := parseDate(value); ok {
		d.data[key] = t
	}
}

func (d *document) list(key string, values []string) {
	if len(values) == 0 {
		return
	}
	if len(values) > maxListed {
		values = values[:maxListed]
	}
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = doctext.Clip(v, maxProperty)
	}
	d.data[key] = out
}

// paragraph adds a block of text on its own line.
func (d *document) paragraph(s string) {
	s = strings.TrimRight(s, " \t")
	if strings.TrimSpace(s) == "" {
		return
	}
	if d.full() {
		return
	}
	d.text.Separate("\n")
	d.text.WriteString(s)
}

// full reports whether the text holds all it may, marking it truncated:
// the readers stop adding there.
func (d *document) full() bool {
	if d.text.Full() {
		d.text.MarkTruncated()
		return true
	}
	return false
}
