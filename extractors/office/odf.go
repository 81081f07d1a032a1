package office

import (
	"context"
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
)

// odfFormats maps the mimetype entry of an OpenDocument package to the
// format reported.
var odfFormats = map[string]string{
	"application/vnd.oasis.opendocument.text":                  "odt",
	"application/vnd.oasis.opendocument.text-template":         "odt",
	"application/vnd.oasis.opendocument.text-master":           "odt",
	"application/vnd.oasis.opendocument.spreadsheet":           "ods",
	"application/vnd.oasis.opendocument.spreadsheet-template":  "ods",
	"application/vnd.oasis.opendocument.presentation":          "odp",
	"application/vnd.oasis.opendocument.presentation-template": "odp",
	"application/vnd.oasis.opendocument.graphics":              "odg",
	"application/vnd.oasis.opendocument.graphics-template":     "odg",
}

// readODF reads an OpenDocument package: meta.xml for the properties,
// content.xml for the text, sheet names and slide titles.
func readODF(ctx context.Context, a *archive, doc *document) error {
	format := ""
	if a.has("mimetype") {
		b, err := a.readSmall("mimetype", 256)
		if err != nil {
			return err
		}
		format = odfFormats[strings.TrimSpace(string(b))]
	}
	if err := readODFMeta(ctx, a, doc); err != nil {
		return err
	}
	if !a.has("content.xml") {
		return errors.New("not an office document: OpenDocument without content.xml")
	}
	body, err := readODFContent(ctx, a, doc)
	if err != nil {
		return err
	}
	if format == "" {
		format = map[string]string{"text": "odt", "spreadsheet": "ods", "presentation": "odp", "drawing": "odg"}[body]
	}
	if format == "" {
		return errors.New("not an office document: unknown OpenDocument type")
	}
	doc.data["format"] = format
	return nil
}

func readODFMeta(ctx context.Context, a *archive, doc *document) error {
	if !a.has("meta.xml") {
		return nil
	}
	var value strings.Builder
	var keywords []string
	err := walkPart(ctx, a, "meta.xml", func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			value.Reset()
			if t.Name.Local == "document-statistic" {
				for _, at := range t.Attr {
					switch at.Name.Local {
					case "page-count":
						doc.setCount("page_count", at.Value)
					case "word-count":
						doc.setCount("word_count", at.Value)
					case "character-count":
						doc.setCount("character_count", at.Value)
					}
				}
			}
		case xml.CharData:
			if value.Len() < maxProperty {
				value.Write(t)
			}
		case xml.EndElement:
			v := value.String()
			value.Reset()
			switch t.Name.Local {
			case "title", "subject", "description":
				doc.set(t.Name.Local, v)
			case "keyword":
				if s := strings.TrimSpace(v); s != "" && len(keywords) < 100 {
					keywords = append(keywords, s)
				}
			case "initial-creator":
				doc.set("creator", v)
			case "creator":
				doc.set("last_modified_by", v)
			case "creation-date":
				doc.setDate("created", v)
			case "date":
				doc.setDate("modified", v)
			case "generator":
				doc.set("application", v)
			}
		}
		return nil
	})
	if len(keywords) > 0 {
		doc.set("keywords", strings.Join(keywords, ", "))
	}
	return partErr(err)
}

// readODFContent walks office:body: paragraphs and headings (text:p,
// text:h) a line each, with text:s spaces, text:tab and text:line-break;
// spreadsheet cells separated by tabs and rows by lines; table names as
// sheets of a spreadsheet; draw:page as slides, whose title is the frame
// of presentation class "title". Deleted text of tracked changes is
// skipped. It returns the kind of body (text, spreadsheet, ...).
func readODFContent(ctx context.Context, a *archive, doc *document) (string, error) {
	var (
		body       string
		inBody     bool
		skip       int // inside tracked changes
		para       strings.Builder
		paraDepth  int
		row        []string
		cell       strings.Builder
		inCell     int
		sheets     []string
		slides     int
		titles     []string
		titleFrame int // depth of nested elements inside a title frame; 0 outside
		title      strings.Builder
		slideTitle bool
	)
	write := func(s string) {
		if titleFrame > 0 && title.Len() < maxProperty {
			title.WriteString(s)
		}
		switch {
		case paraDepth > 0:
			if para.Len() < maxParagraph {
				para.WriteString(s)
			}
		case inCell > 0:
			if cell.Len() < maxParagraph {
				cell.WriteString(s)
			}
		}
	}
	err := walkPart(ctx, a, "content.xml", func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if titleFrame > 0 {
				titleFrame++
			}
			if !inBody {
				if name == "body" {
					inBody = true
				}
				return nil
			}
			if body == "" {
				body = name // office:text, office:spreadsheet, ...
			}
			if skip > 0 || name == "tracked-changes" {
				skip++
				return nil
			}
			switch name {
			case "p", "h":
				paraDepth++
				if paraDepth == 1 {
					para.Reset()
				} else {
					write(" ")
				}
			case "s":
				n, _ := strconv.Atoi(attr(t, "c"))
				write(strings.Repeat(" ", max(1, min(n, 64))))
			case "tab":
				write("\t")
			case "line-break":
				write("\n")
			case "table":
				if body == "spreadsheet" && len(sheets) < maxEntries {
					sheets = append(sheets, attr(t, "name"))
				}
			case "table-row":
				row = row[:0]
			case "table-cell", "covered-table-cell":
				inCell++
				if inCell == 1 {
					cell.Reset()
				}
			case "page":
				slides++
				slideTitle = false
			case "frame":
				if attr(t, "class") == "title" && !slideTitle && titleFrame == 0 {
					titleFrame = 1
					title.Reset()
				}
			}
		case xml.EndElement:
			name := t.Name.Local
			if titleFrame > 0 {
				titleFrame--
				if titleFrame == 0 {
					if s := strings.Join(strings.Fields(title.String()), " "); s != "" {
						titles = append(titles, s)
						slideTitle = true
					}
				}
			}
			if !inBody {
				return nil
			}
			if skip > 0 {
				skip--
				return nil
			}
			switch name {
			case "body":
				inBody = false
			case "p", "h":
				paraDepth--
				if paraDepth == 0 {
					if inCell > 0 {
						if cell.Len() > 0 {
							cell.WriteByte(' ')
						}
						cell.WriteString(para.String())
					} else {
						doc.paragraph(para.String())
					}
					para.Reset()
				}
			case "table-cell", "covered-table-cell":
				inCell--
				if inCell == 0 {
					if s := strings.TrimSpace(cell.String()); s != "" && len(row) < 16384 {
						row = append(row, s)
					}
				}
			case "table-row":
				doc.paragraph(strings.Join(row, "\t"))
			}
			if len(titles) >= maxListed && doc.full() {
				return errStop
			}
		case xml.CharData:
			if inBody && skip == 0 {
				write(string(t))
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	switch body {
	case "spreadsheet":
		doc.data["sheet_count"] = len(sheets)
		doc.list("sheets", sheets)
	case "presentation":
		doc.data["slide_count"] = slides
		doc.list("slide_titles", titles)
	}
	return body, nil
}
