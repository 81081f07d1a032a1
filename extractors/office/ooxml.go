package office

import (
	"context"
	"encoding/xml"
	"errors"
	"path"
	"strings"
)

// readOOXML reads an Office Open XML package: the main part named by the
// package relationships decides the format; core and extended properties
// give the metadata.
func readOOXML(ctx context.Context, a *archive, doc *document) error {
	_, rels, err := relationships(ctx, a, "_rels/.rels", "")
	if err != nil && !errors.Is(err, errMissing) {
		return err
	}
	main := rels["officeDocument"]
	if main == "" {
		for _, p := range []string{"word/document.xml", "xl/workbook.xml", "ppt/presentation.xml"} {
			if a.has(p) {
				main = p
				break
			}
		}
	}
	if err := readCoreProperties(ctx, a, firstNonEmpty(rels["core-properties"], "docProps/core.xml"), doc); err != nil {
		return err
	}
	if err := readAppProperties(ctx, a, firstNonEmpty(rels["extended-properties"], "docProps/app.xml"), doc); err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(main, "word/"):
		doc.data["format"] = "docx"
		return readWord(ctx, a, main, doc)
	case strings.HasPrefix(main, "xl/"):
		doc.data["format"] = "xlsx"
		return readWorkbook(ctx, a, main, doc)
	case strings.HasPrefix(main, "ppt/"):
		doc.data["format"] = "pptx"
		return readPresentation(ctx, a, main, doc)
	}
	return errors.New("not an office document: no Word, Excel or PowerPoint part")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// readCoreProperties reads docProps/core.xml (Dublin Core names).
func readCoreProperties(ctx context.Context, a *archive, part string, doc *document) error {
	if !a.has(part) {
		return nil
	}
	var current string
	var value strings.Builder
	err := walkPart(ctx, a, part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			current = t.Name.Local
			value.Reset()
		case xml.CharData:
			if current != "" && value.Len() < maxProperty {
				value.Write(t)
			}
		case xml.EndElement:
			v := value.String()
			switch t.Name.Local {
			case "title", "subject", "description", "keywords":
				doc.set(t.Name.Local, v)
			case "creator":
				doc.set("creator", v)
			case "lastModifiedBy":
				doc.set("last_modified_by", v)
			case "created":
				doc.setDate("created", v)
			case "modified":
				doc.setDate("modified", v)
			}
			current = ""
			value.Reset()
		}
		return nil
	})
	return partErr(err)
}

// readAppProperties reads docProps/app.xml (application and counts).
func readAppProperties(ctx context.Context, a *archive, part string, doc *document) error {
	if !a.has(part) {
		return nil
	}
	var value strings.Builder
	depth := 0
	err := walkPart(ctx, a, part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			value.Reset()
		case xml.CharData:
			if depth == 2 && value.Len() < maxProperty {
				value.Write(t)
			}
		case xml.EndElement:
			if depth == 2 {
				v := value.String()
				switch t.Name.Local {
				case "Application":
					doc.set("application", v)
				case "Company":
					doc.set("company", v)
				case "Pages":
					doc.setCount("page_count", v)
				case "Words":
					doc.setCount("word_count", v)
				case "Characters":
					doc.setCount("character_count", v)
				case "Slides":
					doc.setCount("slide_count", v)
				}
			}
			depth--
			value.Reset()
		}
		return nil
	})
	return partErr(err)
}

// partErr lets a missing optional part pass.
func partErr(err error) error {
	if errors.Is(err, errMissing) {
		return nil
	}
	return err
}

// readWord reads the body of a Word document, then its footnotes and
// endnotes: w:t runs, w:tab, w:br, one line per w:p. Deleted text
// (w:delText) and field codes (w:instrText) are not text runs, and the
// fallback of alternate content (a text box written twice) is skipped.
func readWord(ctx context.Context, a *archive, main string, doc *document) error {
	parts := []string{main}
	_, rels, err := partRelationships(ctx, a, main)
	if err != nil {
		return err
	}
	for _, typ := range []string{"footnotes", "endnotes"} {
		if p := rels[typ]; p != "" && a.has(p) {
			parts = append(parts, p)
		}
	}
	for _, p := range parts {
		if err := readWordPart(ctx, a, p, doc); err != nil {
			return err
		}
		if doc.full() {
			break
		}
	}
	return nil
}

func readWordPart(ctx context.Context, a *archive, part string, doc *document) error {
	var para strings.Builder
	inText, fallback := false, 0
	return walkPart(ctx, a, part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "Fallback":
				fallback++
			case "t":
				inText = true
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "Fallback":
				fallback--
			case "t":
				inText = false
			case "p":
				if fallback == 0 {
					doc.paragraph(para.String())
				}
				para.Reset()
				if doc.full() {
					return errStop
				}
			}
		case xml.CharData:
			if inText && fallback == 0 && para.Len() < maxParagraph {
				para.Write(t)
			}
		}
		return nil
	})
}

// maxParagraph bounds one paragraph or cell held while it is read.
const maxParagraph = 1 << 20

// readWorkbook reads the sheet names of a workbook and the values of its
// sheets, a row a line and cells separated by tabs, shared strings
// resolved.
func readWorkbook(ctx context.Context, a *archive, main string, doc *document) error {
	dir := path.Dir(main)
	byID, rels, err := partRelationships(ctx, a, main)
	if err != nil {
		return err
	}
	type sheet struct{ name, part string }
	var sheets []sheet
	err = walkPart(ctx, a, main, func(tok xml.Token) error {
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "sheet" && len(sheets) < maxEntries {
			sheets = append(sheets, sheet{name: attr(e, "name"), part: byID[relID(e)]})
		}
		return nil
	})
	if err != nil {
		return err
	}
	names := make([]string, len(sheets))
	for i, s := range sheets {
		names[i] = s.name
	}
	doc.data["sheet_count"] = len(sheets)
	doc.list("sheets", names)
	shared, err := readSharedStrings(ctx, a, firstNonEmpty(rels["sharedStrings"], path.Join(dir, "sharedStrings.xml")))
	if err != nil {
		return err
	}
	for _, s := range sheets {
		if doc.full() {
			break
		}
		if s.part == "" || !a.has(s.part) {
			continue
		}
		if err := readSheet(ctx, a, s.part, shared, doc); err != nil {
			return err
		}
	}
	return nil
}

// maxShared bounds the shared strings kept (bytes); cells that refer to
// strings beyond it are left out of the text, which is capped anyway.
const maxShared = 4 << 20

func readSharedStrings(ctx context.Context, a *archive, part string) ([]string, error) {
	if !a.has(part) {
		return nil, nil
	}
	var (
		out      []string
		item     strings.Builder
		inText   bool
		phonetic int
		total    int
	)
	err := walkPart(ctx, a, part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				item.Reset()
			case "t":
				inText = true
			case "rPh":
				phonetic++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "rPh":
				phonetic--
			case "si":
				s := item.String()
				total += len(s)
				if total > maxShared {
					return errStop
				}
				out = append(out, s)
			}
		case xml.CharData:
			if inText && phonetic == 0 && item.Len() < maxParagraph {
				item.Write(t)
			}
		}
		return nil
	})
	return out, err
}

func readSheet(ctx context.Context, a *archive, part string, shared []string, doc *document) error {
	var (
		row      []string
		value    strings.Builder
		cellType string
		inValue  bool
	)
	return walkPart(ctx, a, part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row = row[:0]
			case "c":
				cellType = attr(t, "t")
				value.Reset()
			case "v", "t":
				inValue = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v", "t":
				inValue = false
			case "c":
				if v := cellText(cellType, value.String(), shared); v != "" && len(row) < 16384 {
					row = append(row, v)
				}
			case "row":
				doc.paragraph(strings.Join(row, "\t"))
				if doc.full() {
					return errStop
				}
			}
		case xml.CharData:
			if inValue && value.Len() < maxParagraph {
				value.Write(t)
			}
		}
		return nil
	})
}

func cellText(typ, v string, shared []string) string {
	v = strings.TrimSpace(v)
	switch typ {
	case "s":
		var i int
		for _, c := range v {
			if c < '0' || c > '9' || i > len(shared) {
				return ""
			}
			i = i*10 + int(c-'0')
		}
		if v == "" || i >= len(shared) {
			return ""
		}
		return strings.TrimSpace(shared[i])
	case "b", "e":
		return "" // booleans and error codes are not words
	}
	return v // numbers, formula strings, inline strings
}

// readPresentation reads the slides in presentation order: each slide's
// text, and its title (the shape whose placeholder is a title).
func readPresentation(ctx context.Context, a *archive, main string, doc *document) error {
	byID, _, err := partRelationships(ctx, a, main)
	if err != nil {
		return err
	}
	var slides []string
	err = walkPart(ctx, a, main, func(tok xml.Token) error {
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "sldId" && len(slides) < maxEntries {
			if p := byID[relID(e)]; p != "" {
				slides = append(slides, p)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	doc.data["slide_count"] = len(slides)
	var titles []string
	for _, s := range slides {
		if !a.has(s) {
			continue
		}
		title, err := readSlide(ctx, a, s, doc)
		if err != nil {
			return err
		}
		if title != "" {
			titles = append(titles, title)
		}
		if len(titles) >= maxListed && doc.full() {
			break
		}
	}
	doc.list("slide_titles", titles)
	return nil
}

// readSlide writes the text of a slide's shapes and returns its title.
func readSlide(ctx context.Context, a *archive, part string, doc *document) (string, error) {
	var (
		title, para strings.Builder
		shape       strings.Builder
		inText      bool
		isTitle     bool
		titleDone   bool
	)
	err := walkPart(ctx, a, part, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "sp":
				shape.Reset()
				isTitle = false
			case "ph":
				if typ := attr(t, "type"); typ == "title" || typ == "ctrTitle" {
					isTitle = true
				}
			case "t":
				inText = true
			case "br":
				para.WriteByte('\n')
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				s := strings.TrimSpace(para.String())
				para.Reset()
				doc.paragraph(s)
				if s != "" && shape.Len() < maxProperty {
					if shape.Len() > 0 {
						shape.WriteByte(' ')
					}
					shape.WriteString(s)
				}
			case "sp":
				if isTitle && !titleDone && shape.Len() > 0 {
					title.WriteString(shape.String())
					titleDone = true
				}
			}
		case xml.CharData:
			if inText && para.Len() < maxParagraph {
				para.Write(t)
			}
		}
		return nil
	})
	return strings.Join(strings.Fields(title.String()), " "), err
}
