package office

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"
)

// newDecoder returns a strict decoder that expands no entity but XML's
// own five: office parts never need more, and a DTD-declared entity (a
// billion laughs) is a syntax error.
func newDecoder(r io.Reader) *xml.Decoder {
	dec := xml.NewDecoder(r)
	dec.Strict = true
	dec.CharsetReader = func(charset string, input io.Reader) (io.Reader, error) {
		switch strings.ToLower(charset) {
		case "utf-8", "utf8", "us-ascii", "ascii":
			return input, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q", charset)
	}
	return dec
}

// walkPart opens a part and passes each token to visit until the end, ctx
// is done, or visit returns errStop (not an error) or another error. A
// part with a document type declaration is refused.
func walkPart(ctx context.Context, a *archive, name string, visit func(xml.Token) error) error {
	rc, err := a.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := newDecoder(rc)
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("part %s: %w", name, err)
		}
		if d, ok := tok.(xml.Directive); ok && strings.HasPrefix(strings.TrimSpace(string(d)), "DOCTYPE") {
			// Office parts never have one (ECMA-376 forbids it); its
			// entities could only be an attack (XXE, billion laughs).
			return fmt.Errorf("part %s: document type declaration refused (office parts have none; its entities are never fetched nor expanded)", name)
		}
		if err := visit(tok); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
}

var errStop = errors.New("stop")

func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// relID is the r:id attribute of an element (a relationship id), told
// apart from a plain id attribute by its namespace.
func relID(e xml.StartElement) string {
	for _, a := range e.Attr {
		if a.Name.Local == "id" && a.Name.Space != "" {
			return a.Value
		}
	}
	return ""
}

// relationships reads an OPC relationships part into id -> target part
// name (resolved against base, the folder of the part they belong to) and
// type suffix -> first target.
func relationships(ctx context.Context, a *archive, relsPart, base string) (byID, byType map[string]string, err error) {
	byID, byType = map[string]string{}, map[string]string{}
	err = walkPart(ctx, a, relsPart, func(tok xml.Token) error {
		e, ok := tok.(xml.StartElement)
		if !ok || e.Name.Local != "Relationship" || len(byID) >= maxEntries {
			return nil
		}
		if strings.EqualFold(attr(e, "TargetMode"), "External") {
			return nil
		}
		target := attr(e, "Target")
		if strings.HasPrefix(target, "/") {
			target = strings.TrimPrefix(target, "/")
		} else {
			target = path.Join(base, target)
		}
		byID[attr(e, "Id")] = target
		typ := attr(e, "Type")
		if i := strings.LastIndexByte(typ, '/'); i >= 0 {
			typ = typ[i+1:]
		}
		if _, seen := byType[typ]; !seen {
			byType[typ] = target
		}
		return nil
	})
	return byID, byType, err
}

// partRelationships reads the relationships of part (its _rels/NAME.rels
// part, targets resolved against part's folder); a part without a
// relationships part has none.
func partRelationships(ctx context.Context, a *archive, part string) (byID, byType map[string]string, err error) {
	dir := path.Dir(part)
	byID, byType, err = relationships(ctx, a, path.Join(dir, "_rels", path.Base(part)+".rels"), dir)
	if errors.Is(err, errMissing) {
		err = nil
	}
	return byID, byType, err
}

// parseDate reads the dates of document properties: W3CDTF with a zone
// (Office Open XML) or without one (OpenDocument, taken as UTC).
func parseDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			if t.Year() < 1 || t.Year() > 9999 {
				return "", false
			}
			return t.Format(time.RFC3339), true
		}
	}
	return "", false
}
