package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/metaharvest/metaharvest/internal/jsonleaf"
	"github.com/metaharvest/metaharvest/models"
)

// Document is one item as the search engine sees it: "_id", the base fields
// (FieldName ... FieldExtension), the data of each extractor under its name
// ("mediainfo": {...}, "hashes": {...}), custom fields under "fields.<field_id>",
// and the visibility lists FieldLocationGroups and FieldContainerGroups, which
// engines keep to themselves and never return.
type Document map[string]any

// Base fields of every document.
const (
	FieldID                 = "_id"
	FieldName               = "name"
	FieldMimeType           = "mime_type"
	FieldSize               = "size"
	FieldLastModified       = "last_modified"
	FieldLocationID         = "location_id"
	FieldLocationKind       = "location_kind"
	FieldLocationName       = "location_name"
	FieldContainerID        = "store_container_id"
	FieldContainerName      = "store_container_name"
	FieldStoreURL           = "store_url"
	FieldType               = "type"
	FieldExtension          = "extension"
	FieldLocationGroups     = "_location_groups"
	FieldContainerGroups    = "_container_groups"
	FieldCustomFieldsPrefix = "fields"
	// FieldTranscript holds the item's captions: "transcript.text",
	// "transcript.languages", "transcript.sources".
	FieldTranscript = "transcript"
	// FieldPeople lists the item's persons across the archive (package
	// people): "people.person_id", "people.name" (named ones only),
	// "people.is_known".
	FieldPeople = "people"
)

// ID returns the document's _id ("" when missing or not a string).
func (d Document) ID() string {
	s, _ := d[FieldID].(string)
	return s
}

// Groups returns the visibility lists of the document.
func (d Document) Groups() (locationGroups, containerGroups []string) {
	return stringList(d[FieldLocationGroups]), stringList(d[FieldContainerGroups])
}

func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			if s, ok := x.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Extension is the lower-case extension of a file name without its dot, as the
// store extractor records it: "IMG_1.JPG" -> "jpg", "README" -> "".
func Extension(name string) string {
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	ext := path.Ext(strings.TrimLeft(base, "."))
	return strings.ToLower(strings.TrimPrefix(ext, "."))
}

// Limits on what the catalogue (and so filters, sorts and aggregations) knows
// of a document. Deeper or odder paths stay searchable as text.
const (
	maxPathDepth  = 8
	maxPathLen    = 200
	maxSegmentLen = 64
	maxTextBytes  = 256 << 10
	// maxValueLength bounds a string as a filter value: longer ones (text
	// content) are kept as their first maxValueLength bytes followed by "…",
	// so that exists still sees them while indexes stay small; they remain
	// fully searchable as text.
	maxValueLength = 256
)

// nonTextFields are string fields left out of full-text search: identifiers
// nobody types.
var nonTextFields = map[string]bool{
	FieldID:          true,
	FieldLocationID:  true,
	FieldContainerID: true,
	"item_id":        true,
}

// DigestFields are the content digests (the hashes extractor's), by length
// in hex digits. They are words nobody reads: an engine may keep them out
// of its word index (BodyText does) as long as a query that is one digest
// finds the items with it (DigestQuery).
var DigestFields = map[int]string{32: "hashes.md5", 40: "hashes.sha1", 64: "hashes.sha256"}

// DigestQuery returns the digest field and value a text query stands for
// when it is one hexadecimal digest (as pasted), lower-cased.
func DigestQuery(query string) (field, value string, ok bool) {
	q := strings.ToLower(strings.TrimSpace(query))
	field, ok = DigestFields[len(q)]
	if !ok {
		return "", "", false
	}
	for _, c := range q {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", "", false
		}
	}
	return field, q, true
}

// IsDigestField reports whether a path is one of DigestFields.
func IsDigestField(path string) bool { return digestPaths[path] }

// digestPaths are the paths of DigestFields.
var digestPaths = func() map[string]bool {
	m := map[string]bool{}
	for _, path := range DigestFields {
		m[path] = true
	}
	return m
}()

// NonTextFields lists the string fields left out of full-text search.
func NonTextFields() []string {
	out := make([]string, 0, len(nonTextFields))
	for f := range nonTextFields {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Searchable reports whether a string field takes part in full-text search.
func Searchable(path string) bool { return !nonTextFields[path] && !strings.HasPrefix(path, "_") }

// Prepared is a document decomposed the way both backends index it, so that
// they agree on what a field path, a value, a date and a word are.
type Prepared struct {
	ID string
	// Public is the document as returned to clients (internals removed), with
	// JSON numbers as json.Number.
	Public map[string]any
	// Flat maps each catalogued leaf path to its distinct non-empty scalar
	// values (string, float64, bool), in document order.
	Flat map[string][]any
	// Dates maps leaf paths holding date strings (see ParseDateValue) to their
	// instants in seconds since the epoch, so that ranges, sorts and metrics
	// compare instants and not spellings.
	Dates map[string][]float64
	// Kinds is the kind of each path in Flat (what the catalogue learns).
	Kinds map[string]Kind
	// NameText is the "name" text (weighted higher); BodyText every other
	// searchable string but dates and digests (see DigestFields), capped at
	// 256 KiB.
	NameText, BodyText string
	// LocationGroups and ContainerGroups are the visibility lists.
	LocationGroups, ContainerGroups []string

	// body is BodyText while Prepare walks the document.
	body strings.Builder
	// spare backs the one-value slices of Flat (most paths hold one value):
	// one allocation for many.
	spare []any
}

// PrepareItem is Prepare for item documents: it derives "type" from
// "mime_type" and "extension" from "name" when the document lacks them.
func PrepareItem(doc Document) (*Prepared, error) {
	_, hasType := doc[FieldType]
	_, hasExt := doc[FieldExtension]
	if !hasType || !hasExt {
		c := make(Document, len(doc)+2)
		for k, v := range doc {
			c[k] = v
		}
		if !hasType {
			mime, _ := doc[FieldMimeType].(string)
			c[FieldType] = models.MediaType(mime)
		}
		if !hasExt {
			name, _ := doc[FieldName].(string)
			c[FieldExtension] = Extension(name)
		}
		doc = c
	}
	return Prepare(doc)
}

// normalized returns v in the shapes a JSON decoder with UseNumber
// produces (maps, []any, strings, json.Number, bools, nil), as the
// document would read back from JSON, without encoding it, and whether the
// result differs from v (is a new value): strings (and keys) lose NUL
// characters and invalid UTF-8, which Postgres text and jsonb cannot hold.
// Values of other types go through JSON. ok is false when a value cannot be
// encoded. Maps and slices already in those shapes are returned as they
// are, not copied (most of a document is: copies were a third of the
// allocations of a harvest's indexing); a map or slice with a value to
// change is copied, so v itself is never modified.
func normalized(v any) (out any, changed, ok bool) {
	// v, not x, is returned unchanged: boxing x again would allocate.
	switch x := v.(type) {
	case nil, bool, json.Number:
		return v, false, true
	case string:
		if !isClean(x) {
			return cleanString(x), true, true
		}
		return v, false, true
	case map[string]any:
		var copied map[string]any // nil until a key or value changes
		for k, e := range x {
			n, changedValue, ok := normalized(e)
			if !ok {
				return nil, false, false
			}
			keyClean := isClean(k)
			if !changedValue && keyClean {
				continue
			}
			if copied == nil {
				copied = make(map[string]any, len(x))
				for k2, e2 := range x {
					copied[k2] = e2
				}
			}
			if !keyClean {
				delete(copied, k)
				k = cleanString(k)
			}
			copied[k] = n
		}
		if copied == nil {
			return v, false, true
		}
		return copied, true, true
	case Document:
		n, _, ok := normalized(map[string]any(x))
		return n, true, ok // another type: a new value either way
	case []any:
		var copied []any
		for i, e := range x {
			n, changedValue, ok := normalized(e)
			if !ok {
				return nil, false, false
			}
			if !changedValue {
				continue
			}
			if copied == nil {
				copied = make([]any, len(x))
				copy(copied, x)
			}
			copied[i] = n
		}
		if copied == nil {
			return v, false, true
		}
		return copied, true, true
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cleanString(e)
		}
		return out, true, true
	case int:
		return json.Number(strconv.FormatInt(int64(x), 10)), true, true
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), true, true
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), true, true
	case float64:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, false, false
		}
		return json.Number(b), true, true
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var decoded any
	if err := dec.Decode(&decoded); err != nil {
		return nil, false, false
	}
	n, _, ok := normalized(decoded)
	return n, true, ok
}

// isClean: s has no NUL character and is valid UTF-8 (cleanString
// returns it as it is).
func isClean(s string) bool {
	return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

// cleanString drops NUL characters and replaces each byte of invalid
// UTF-8 with U+FFFD, as encoding/json does (a document made from Go values
// reads as the one decoded from their JSON).
func cleanString(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Prepare decomposes a document. It fails when _id is missing.
func Prepare(doc Document) (*Prepared, error) {
	// One pass normalizes the top level and leaves the internal fields out
	// of the public document: a small file's document is mostly top-level
	// fields, and a copy of them for each step showed per file.
	public := make(map[string]any, len(doc))
	var locationGroups, containerGroups any
	for k, v := range doc {
		n, _, ok := normalized(v)
		if !ok {
			if _, err := json.Marshal(doc); err != nil {
				return nil, fmt.Errorf("encode document: %w", err)
			}
			return nil, errors.New("encode document: a value cannot be encoded")
		}
		if !isClean(k) {
			k = cleanString(k)
		}
		switch {
		case k == FieldLocationGroups:
			locationGroups = n
		case k == FieldContainerGroups:
			containerGroups = n
		case !strings.HasPrefix(k, "_") || k == FieldID:
			public[k] = n
		}
	}
	id, _ := public[FieldID].(string)
	if id == "" {
		return nil, errors.New("document without _id")
	}
	p := &Prepared{
		ID: id,
		// Sized for about as many leaves as the document has fields, and a
		// few more: most fields are strings and numbers, and an extractor's
		// object adds a few leaves (a larger document grows them).
		Flat:            make(map[string][]any, len(public)+8),
		Dates:           map[string][]float64{},
		Kinds:           make(map[string]Kind, len(public)+8),
		LocationGroups:  stringList(locationGroups),
		ContainerGroups: stringList(containerGroups),
		Public:          public,
	}
	jsonleaf.Walker{Sorted: true}.Walk(public, p.leaf)
	if name, ok := public[FieldName].(string); ok {
		p.NameText = name
	}
	p.BodyText = p.body.String()
	return p, nil
}

// leaf takes one leaf of the public document into the body text and,
// when its path is catalogued, into Flat, Dates and Kinds.
func (p *Prepared) leaf(l jsonleaf.Leaf) {
	path, body := l.Path, &p.body
	switch x := l.Value.(type) {
	case string:
		if x == "" {
			return
		}
		// Dates and digests are no words: ranges and DigestQuery find them.
		if path != FieldName && Searchable(path) && body.Len() < maxTextBytes && !IsDigestField(path) && !looksLikeDate(x) {
			if body.Len() > 0 {
				body.WriteByte('\n')
			}
			body.WriteString(truncateUTF8(x, maxTextBytes-body.Len()))
		}
		if !catalogued(l) {
			return
		}
		if len(x) > maxValueLength {
			p.add(path, truncateUTF8(x, maxValueLength)+"…", KindString)
		} else if t, ok := ParseDateValue(x); ok {
			p.add(path, l.Value, KindDate)
			p.addDate(path, float64(t.UnixNano())/1e9)
		} else {
			p.add(path, l.Value, KindString) // l.Value: x boxed again would allocate
		}
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || !catalogued(l) {
			return
		}
		p.add(path, f, KindNumber)
	case bool:
		if catalogued(l) {
			p.add(path, x, KindBool)
		}
	}
}

// catalogued: the catalogue knows the leaf's path (see the limits above);
// the others stay searchable as text.
func catalogued(l jsonleaf.Leaf) bool {
	if l.Path == "" || len(l.Keys) > maxPathDepth || len(l.Path) > maxPathLen {
		return false
	}
	for _, k := range l.Keys {
		if !validSegment(k) {
			return false
		}
	}
	return true
}

func (p *Prepared) add(path string, v any, k Kind) {
	vals, seen := p.Flat[path]
	if !seen {
		if len(p.spare) == 0 {
			p.spare = make([]any, 16)
		}
		one := p.spare[:1:1] // capacity 1: a second value reallocates
		p.spare = p.spare[1:]
		one[0] = v
		p.Flat[path], p.Kinds[path] = one, k
		return
	}
	p.Kinds[path] |= k
	for _, have := range vals {
		if have == v {
			return
		}
	}
	p.Flat[path] = append(vals, v)
}

func (p *Prepared) addDate(path string, sec float64) {
	for _, have := range p.Dates[path] {
		if have == sec {
			return
		}
	}
	p.Dates[path] = append(p.Dates[path], sec)
}

// validSegment: a key usable in a dotted path. Keys with dots, control
// characters or odd lengths cannot be named unambiguously by clients.
func validSegment(k string) bool {
	if k == "" || len(k) > maxSegmentLen || !utf8.ValidString(k) {
		return false
	}
	for _, r := range k {
		if r == '.' || r == '"' || r == '\\' || unicode.IsControl(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

func truncateUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006:01:02 15:04:05.999999999Z07:00", // EXIF
	"2006:01:02 15:04:05.999999999",
	"2006-01-02",
}

// looksLikeDate: a date value (ParseDateValue).
func looksLikeDate(s string) bool {
	_, ok := ParseDateValue(s)
	return ok
}

// ParseDateValue recognises the date strings documents carry: RFC 3339
// timestamps (with or without zone, "T" or space), EXIF "2006:01:02 15:04:05"
// and plain dates. Values without a zone are UTC.
func ParseDateValue(s string) (time.Time, bool) {
	if len(s) < 10 || len(s) > 40 || s[0] < '0' || s[0] > '9' || (s[4] != '-' && s[4] != ':') {
		return time.Time{}, false
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// FieldText is the text of one string field of a document: its values
// joined by newlines.
type FieldText struct {
	Path string
	Text string
}

// TextFields returns the searchable string fields of a document (all of
// them, or those listed in only), sorted by path, each capped at maxBytes.
func TextFields(doc map[string]any, only []string, maxBytes int) []FieldText {
	byPath := map[string]*strings.Builder{}
	jsonleaf.Walk(doc, func(l jsonleaf.Leaf) {
		x, ok := l.Value.(string)
		path := l.Path
		if !ok || x == "" || !Searchable(path) || (len(only) > 0 && !slicesContains(only, path)) {
			return
		}
		b := byPath[path]
		if b == nil {
			b = &strings.Builder{}
			byPath[path] = b
		}
		if b.Len() >= maxBytes {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(truncateUTF8(x, maxBytes-b.Len()))
	})
	out := make([]FieldText, 0, len(byPath))
	for p, b := range byPath {
		out = append(out, FieldText{Path: p, Text: b.String()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Project keeps the listed paths of a result document (plus _id). A path
// names a leaf or a whole sub-object; through arrays of objects it keeps that
// path in each element.
func Project(doc map[string]any, only []string) map[string]any {
	if len(only) == 0 {
		return doc
	}
	out := map[string]any{}
	if id, ok := doc[FieldID]; ok {
		out[FieldID] = id
	}
	for _, p := range only {
		projectInto(out, doc, strings.Split(p, "."))
	}
	return out
}

func projectInto(dst, src map[string]any, segs []string) {
	v, ok := src[segs[0]]
	if !ok {
		return
	}
	if len(segs) == 1 {
		dst[segs[0]] = v
		return
	}
	switch x := v.(type) {
	case map[string]any:
		sub, _ := dst[segs[0]].(map[string]any)
		if sub == nil {
			sub = map[string]any{}
		}
		projectInto(sub, x, segs[1:])
		if len(sub) > 0 {
			dst[segs[0]] = sub
		}
	case []any:
		prev, _ := dst[segs[0]].([]any)
		var arr []any
		for _, e := range x {
			em, ok := e.(map[string]any)
			if !ok {
				continue
			}
			var sub map[string]any
			if j := len(arr); j < len(prev) {
				sub, _ = prev[j].(map[string]any)
			}
			if sub == nil {
				sub = map[string]any{}
			}
			projectInto(sub, em, segs[1:])
			arr = append(arr, sub)
		}
		if len(arr) > 0 {
			dst[segs[0]] = arr
		}
	}
}

// AppendJSON appends the JSON of a value in the shapes normalized makes
// (maps, []any, strings, json.Number, bools, nil), faster than
// encoding/json and with keys in no particular order (jsonb sorts them);
// other values go through encoding/json.
func AppendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if x {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case string:
		return appendJSONString(b, x), nil
	case json.Number:
		if x == "" {
			return append(b, '0'), nil
		}
		return append(b, x...), nil
	case map[string]any:
		b = append(b, '{')
		first := true
		for k, e := range x {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONString(b, k)
			b = append(b, ':')
			var err error
			if b, err = AppendJSON(b, e); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendJSON(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	raw, err := json.Marshal(v)
	return append(b, raw...), err
}

// appendJSONString appends s as a JSON string (s is valid UTF-8: normalized
// made it so).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
