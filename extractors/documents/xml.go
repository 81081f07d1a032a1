package documents

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/transform"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "xml",
		DisplayName:    "XML",
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptXML,
		Fields: []extractors.Field{
			{Path: "valid", Type: extractors.TypeBool, Doc: "true when the file is well-formed XML; absent when it is larger than what was checked (64 MiB)"},
			{Path: "error", Type: extractors.TypeString, Doc: "why the file is not well-formed (undefined entities included: none is expanded)"},
			{Path: "root", Type: extractors.TypeString, Doc: "local name of the root element"},
			{Path: "root_namespace", Type: extractors.TypeString, Doc: "namespace URI of the root element"},
			{Path: "namespaces", Type: extractors.TypeString, Doc: "namespace URIs declared in the file (at most 50)"},
			{Path: "element_count", Type: extractors.TypeNumber, Doc: "elements read"},
			{Path: "has_doctype", Type: extractors.TypeBool, Doc: "true when the file has a document type declaration (never fetched nor applied)"},
			{Path: "encoding", Type: extractors.TypeString, Doc: "encoding declared by the file, when not UTF-8"},
			{Path: "text", Type: extractors.TypeText, Doc: "character data of the elements, at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the file holds more text than was kept"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) {
			return walker{max: xmlMaxBytes, walk: walkXML}, nil
		},
	})
}

func acceptXML(f extractors.File) bool {
	if acceptHTML(f) || acceptFDX(f) {
		return false // their own extractor reads them
	}
	if strings.HasSuffix(f.MIME, "+xml") {
		return true
	}
	return extractors.AcceptMIME([]string{"text/xml", "application/xml"}, "xml", "xsd", "xsl", "xslt", "rss", "atom", "svg", "gpx", "kml", "plist", "xmp", "nfo")(f)
}

// xmlMaxBytes caps what the xml extractor reads of a file.
const (
	xmlMaxBytes      = 64 << 20
	xmlMaxNamespaces = 50
)

// newXMLDecoder returns a decoder that never expands an entity beyond the
// five of XML and those of HTML (a fixed table): an entity a DTD declares
// (billion laughs, an external SYSTEM entity) is an undefined entity, a
// syntax error, and nothing is ever fetched. Declared encodings other than
// UTF-8 are decoded by x/text; *label receives the declared one.
func newXMLDecoder(r io.Reader, label *string) *xml.Decoder {
	dec := xml.NewDecoder(r)
	dec.Strict = true
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(charset string, input io.Reader) (io.Reader, error) {
		*label = strings.ToLower(charset)
		enc := doctext.Charset(charset)
		if enc == nil {
			if l := *label; l == "utf-8" || l == "utf8" || l == "us-ascii" || l == "ascii" {
				return input, nil
			}
			return nil, fmt.Errorf("unsupported encoding %q", charset)
		}
		return transform.NewReader(input, enc.NewDecoder()), nil
	}
	return dec
}

func walkXML(ctx context.Context, r io.Reader) (map[string]any, error) {
	src := &readErrs{r: r}
	var label string
	dec := newXMLDecoder(src, &label)
	text := doctext.NewBuilder(doctext.MaxText)
	data := map[string]any{}
	var namespaces []any
	seenNS := map[string]bool{}
	elements := 0
	tokens := 0
	for {
		tokens++
		if tokens%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if elements == 0 {
				data["valid"] = false
				data["error"] = "no root element"
			} else {
				data["valid"] = true
			}
			break
		}
		if err != nil {
			if src.err != nil {
				return nil, doctext.ReadErr("xml", src.err)
			}
			data["valid"] = false
			data["error"] = doctext.Clip(err.Error(), 200)
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if elements == 0 {
				data["root"] = doctext.Clip(t.Name.Local, 256)
				if t.Name.Space != "" {
					data["root_namespace"] = doctext.Clip(t.Name.Space, 512)
				}
			}
			elements++
			for _, a := range t.Attr {
				if (a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns")) && !seenNS[a.Value] && len(namespaces) < xmlMaxNamespaces {
					seenNS[a.Value] = true
					namespaces = append(namespaces, doctext.Clip(a.Value, 512))
				}
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(t)); s != "" {
				if !text.Full() {
					text.Separate("\n")
					text.WriteString(s)
				} else {
					text.MarkTruncated()
				}
			}
		case xml.Directive:
			if strings.HasPrefix(strings.TrimSpace(string(t)), "DOCTYPE") {
				data["has_doctype"] = true
			}
		}
	}
	data["element_count"] = elements
	if len(namespaces) > 0 {
		data["namespaces"] = namespaces
	}
	if label != "" && label != "utf-8" && label != "utf8" {
		data["encoding"] = label
	}
	text.Put(data)
	return data, nil
}
