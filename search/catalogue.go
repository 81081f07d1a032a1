package search

import (
	"sort"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// Kind is a bit set of the value types seen at a field path.
type Kind uint8

// Value kinds.
const (
	KindString Kind = 1 << iota
	KindNumber
	KindBool
	KindDate // strings that ParseDateValue reads as instants
)

func (k Kind) String() string {
	var parts []string
	for _, x := range []struct {
		k Kind
		n string
	}{{KindString, "string"}, {KindNumber, "number"}, {KindBool, "bool"}, {KindDate, "date"}} {
		if k&x.k != 0 {
			parts = append(parts, x.n)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}

// Scope names a catalogue: item documents or segments.
type Scope string

// Catalogue scopes.
const (
	ScopeItems    Scope = "items"
	ScopeSegments Scope = "segments"
)

// MaxCatalogueFields bounds a catalogue: paths seen after it is full are not
// filterable (they stay searchable as text). Extractors that copy arbitrary
// user data (json, xml) would otherwise grow it without end.
const MaxCatalogueFields = 5000

var baseFields = map[Scope]map[string]Kind{
	ScopeItems: {
		FieldID:                        KindString,
		FieldName:                      KindString,
		FieldMimeType:                  KindString,
		FieldSize:                      KindNumber,
		FieldLastModified:              KindDate,
		FieldLocationID:                KindString,
		FieldLocationKind:              KindString,
		FieldLocationName:              KindString,
		FieldContainerID:               KindString,
		FieldContainerName:             KindString,
		FieldStoreURL:                  KindString,
		FieldType:                      KindString,
		FieldExtension:                 KindString,
		FieldTranscript + ".text":      KindString,
		FieldTranscript + ".languages": KindString,
		FieldTranscript + ".sources":   KindString,
		FieldPeople + ".person_id":     KindString,
		FieldPeople + ".name":          KindString,
		FieldPeople + ".is_known":      KindBool,
	},
	ScopeSegments: {
		FieldID:   KindString,
		"item_id": KindString,
		"time":    KindNumber,
		// Every item's captions are linked to its segments when they are
		// built (BuildSegments), whichever extractors ran: known before
		// any caption was indexed, so that a filter on them is valid.
		"summary.transcript.text":     KindString,
		"summary.transcript.source":   KindString,
		"summary.transcript.language": KindString,
		"summary.transcript.start_at": KindNumber,
		"summary.transcript.end_at":   KindNumber,
		// A moment's faces carry their persons across the archive.
		"summary.people.id":   KindString,
		"summary.people.name": KindString,
	},
}

// BaseFields returns the fixed fields of a scope, known before any
// document: the base fields of every document and, for items, the fields
// the extractors of extractors.Default declare (the catalogue is declared,
// not only discovered: a filter on mediainfo.video.duration works before
// any video was harvested).
func BaseFields(scope Scope) map[string]Kind {
	out := map[string]Kind{}
	for k, v := range baseFields[scope] {
		out[k] = v
	}
	if scope == ScopeItems {
		for _, f := range extractors.Default.Fields() {
			// An extractor named like a base field (mime_type) has its data
			// hidden by that field in documents.
			if _, clash := baseFields[scope][f.Extractor]; clash {
				continue
			}
			if _, base := out[f.Path]; !base {
				out[f.Path] = kindOf(f.Type)
			}
		}
	}
	return out
}

func kindOf(t extractors.FieldType) Kind {
	switch t {
	case extractors.TypeNumber:
		return KindNumber
	case extractors.TypeBool:
		return KindBool
	case extractors.TypeDate:
		return KindDate
	}
	return KindString
}

// Catalogue is the set of field paths an engine knows, with their kinds: the
// base fields plus every leaf path seen in upserted documents. Requests naming
// a path outside it are refused (400) rather than answered with nothing.
// A Catalogue is not safe for concurrent mutation; engines clone and swap.
type Catalogue struct {
	scope   Scope
	fields  map[string]Kind
	parents map[string]bool
}

// NewCatalogue returns the catalogue of a scope holding its base fields.
func NewCatalogue(scope Scope) *Catalogue {
	c := &Catalogue{scope: scope, fields: map[string]Kind{}, parents: map[string]bool{}}
	for p, k := range BaseFields(scope) {
		c.Add(p, k)
	}
	return c
}

// Scope of the catalogue.
func (c *Catalogue) Scope() Scope { return c.scope }

// Add records a path and kind; it reports whether the catalogue changed.
// Internal paths ("_" prefixed, other than _id) are never added.
func (c *Catalogue) Add(path string, k Kind) bool {
	if path == "" || (strings.HasPrefix(path, "_") && path != FieldID) {
		return false
	}
	have, ok := c.fields[path]
	if ok && have|k == have {
		return false
	}
	if !ok && len(c.fields) >= MaxCatalogueFields {
		return false
	}
	c.fields[path] = have | k
	for i := strings.IndexByte(path, '.'); i >= 0; {
		c.parents[path[:i]] = true
		j := strings.IndexByte(path[i+1:], '.')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return true
}

// Merge adds every path of a prepared document and returns the paths whose
// kinds were new (what a backend must persist).
func (c *Catalogue) Merge(p *Prepared) map[string]Kind {
	var added map[string]Kind
	for path, k := range p.Kinds {
		if c.Add(path, k) {
			if added == nil {
				added = map[string]Kind{}
			}
			added[path] = c.fields[path]
		}
	}
	return added
}

// Kind returns the kinds of a leaf path.
func (c *Catalogue) Kind(path string) (Kind, bool) {
	k, ok := c.fields[path]
	return k, ok
}

// IsParent reports whether path is a proper prefix (object) of known leaves.
func (c *Catalogue) IsParent(path string) bool { return c.parents[path] }

// Known reports whether path is a leaf or a parent.
func (c *Catalogue) Known(path string) bool {
	_, leaf := c.fields[path]
	return leaf || c.parents[path]
}

// Leaves returns path itself when it is a leaf and every leaf below it, sorted.
func (c *Catalogue) Leaves(path string) []string {
	var out []string
	if _, ok := c.fields[path]; ok {
		out = append(out, path)
	}
	if c.parents[path] {
		prefix := path + "."
		for p := range c.fields {
			if strings.HasPrefix(p, prefix) {
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Paths returns every leaf path, sorted.
func (c *Catalogue) Paths() []string {
	out := make([]string, 0, len(c.fields))
	for p := range c.fields {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Len is the number of leaf paths.
func (c *Catalogue) Len() int { return len(c.fields) }

// Clone returns an independent copy.
func (c *Catalogue) Clone() *Catalogue {
	n := &Catalogue{scope: c.scope, fields: make(map[string]Kind, len(c.fields)), parents: make(map[string]bool, len(c.parents))}
	for k, v := range c.fields {
		n.fields[k] = v
	}
	for k, v := range c.parents {
		n.parents[k] = v
	}
	return n
}
