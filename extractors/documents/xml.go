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
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "xml",
		DisplayName:    "XML",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptXML,
		Fields: []extractors.Field{
			{Path: "valid", Type: extractors.TypeBool, Doc: "true when the file is well-formed XML (a file over 64 MiB is refused: an error)"},
			{Path: "error", Type: extractors.TypeString, Doc: "why the file is not well-formed (undefined entities included: none is expanded; a file declaring external or nested entities is refused: an error)"},
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

// xmlMaxBytes is the most the xml extractor parses: a larger file is
// refused (tooLarge).
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
				if err := checkDoctype(string(t)); err != nil {
					return nil, err
				}
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

// checkDoctype refuses a document type declaration made to attack XML
// parsers: one whose internal subset declares an external entity (SYSTEM
// or PUBLIC: XXE) or an entity whose value refers to another entity it
// declares (the nesting of a billion laughs). Nothing is ever fetched or
// expanded here, but such a file has no other use, so the extractor fails
// on it (deterministically) rather than report it as data. Entities with
// literal values (the namespaces of an Illustrator SVG) and an external
// DTD (<!DOCTYPE html PUBLIC "..." "...">, never read) are not refused.
func checkDoctype(directive string) error {
	subset := internalSubset(directive)
	decls := entityDecls(subset)
	declared := map[string]bool{}
	for _, d := range decls {
		if d.external {
			return fmt.Errorf("external entity refused: %s is declared SYSTEM or PUBLIC (never fetched)", d.label())
		}
		declared[d.key()] = true
	}
	// A value may hide its references behind character references
	// ("&#38;lol;" is "&lol;" once included).
	unhide := strings.NewReplacer("&#38;", "&", "&#x26;", "&", "&#X26;", "&", "&#37;", "%", "&#x25;", "%", "&#X25;", "%")
	for _, d := range decls {
		for _, ref := range entityRefs(unhide.Replace(d.value)) {
			if declared[ref] {
				return fmt.Errorf("entity expansion refused: %s refers to entity %q (a billion laughs)", d.label(), doctext.Clip(ref[1:], 64))
			}
		}
	}
	return nil
}

// entityDecl is an <!ENTITY> declaration of a DTD's internal subset.
type entityDecl struct {
	name     string
	param    bool // a parameter entity (%name;)
	external bool // SYSTEM or PUBLIC
	value    string
}

// key is how a reference names the entity: "&name" or "%name".
func (d entityDecl) key() string {
	if d.param {
		return "%" + d.name
	}
	return "&" + d.name
}

func (d entityDecl) label() string {
	kind := "entity"
	if d.param {
		kind = "parameter entity"
	}
	return fmt.Sprintf("%s %q", kind, doctext.Clip(d.name, 64))
}

// internalSubset is the part of a DOCTYPE directive between its brackets
// ("" when it has none), quoted strings of the external id skipped.
func internalSubset(directive string) string {
	for i := 0; i < len(directive); i++ {
		switch c := directive[i]; c {
		case '"', '\'':
			j := strings.IndexByte(directive[i+1:], c)
			if j < 0 {
				return ""
			}
			i += j + 1
		case '[':
			sub := directive[i+1:]
			if k := strings.LastIndexByte(sub, ']'); k >= 0 {
				sub = sub[:k]
			}
			return sub
		}
	}
	return ""
}

// entityDecls lists the entity declarations of an internal subset,
// skipping comments, processing instructions and quoted strings of other
// declarations.
func entityDecls(subset string) []entityDecl {
	var out []entityDecl
	for i := 0; i < len(subset); {
		rest := subset[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			j := strings.Index(rest[4:], "-->")
			if j < 0 {
				return out
			}
			i += 4 + j + 3
		case strings.HasPrefix(rest, "<?"):
			j := strings.Index(rest[2:], "?>")
			if j < 0 {
				return out
			}
			i += 2 + j + 2
		case strings.HasPrefix(rest, "<!ENTITY"):
			d, n := parseEntityDecl(rest[len("<!ENTITY"):])
			if d.name != "" {
				out = append(out, d)
			}
			i += len("<!ENTITY") + n
		case rest[0] == '"' || rest[0] == '\'':
			j := strings.IndexByte(rest[1:], rest[0])
			if j < 0 {
				return out
			}
			i += j + 2
		default:
			i++
		}
	}
	return out
}

// parseEntityDecl reads the rest of an <!ENTITY declaration (after the
// keyword) and returns it with the bytes it took, its closing '>' included.
func parseEntityDecl(s string) (entityDecl, int) {
	var d entityDecl
	i := skipXMLSpace(s, 0)
	if i < len(s) && s[i] == '%' {
		d.param = true
		i = skipXMLSpace(s, i+1)
	}
	j := i
	for j < len(s) && !isXMLSpace(s[j]) && !strings.ContainsRune(`>"'`, rune(s[j])) {
		j++
	}
	d.name = s[i:j]
	first := true
	for k := j; k < len(s); {
		switch c := s[k]; {
		case c == '>':
			return d, k + 1
		case c == '"' || c == '\'':
			e := strings.IndexByte(s[k+1:], c)
			if e < 0 {
				return d, len(s)
			}
			if first {
				d.value = s[k+1 : k+1+e]
			}
			first = false
			k += e + 2
		case isXMLSpace(c):
			k++
		default:
			if first && (strings.HasPrefix(s[k:], "SYSTEM") || strings.HasPrefix(s[k:], "PUBLIC")) {
				d.external = true
			}
			first = false
			k++
		}
	}
	return d, len(s)
}

// entityRefs lists the references of an entity value: "&name" for a
// general entity, "%name" for a parameter entity; character references
// (&#38;) are not entities.
func entityRefs(value string) []string {
	var refs []string
	for i := 0; i < len(value); i++ {
		if value[i] != '&' && value[i] != '%' {
			continue
		}
		end := strings.IndexByte(value[i+1:], ';')
		if end <= 0 {
			continue
		}
		name := value[i+1 : i+1+end]
		if strings.HasPrefix(name, "#") || strings.ContainsFunc(name, func(r rune) bool { return r < 0x80 && isXMLSpace(byte(r)) }) {
			continue
		}
		refs = append(refs, value[i:i+1]+name)
	}
	return refs
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipXMLSpace(s string, i int) int {
	for i < len(s) && isXMLSpace(s[i]) {
		i++
	}
	return i
}
