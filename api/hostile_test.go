package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/search"
)

// stringLeaf is a place in a request body where openapi.yaml says a
// string goes, with the maxLength published for it.
type stringLeaf struct {
	path []any // member names (string) and array indexes (int)
	max  int
}

func (l stringLeaf) String() string {
	var b strings.Builder
	for _, p := range l.path {
		switch x := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(x)
		case int:
			fmt.Fprintf(&b, "[%d]", x)
		}
	}
	return b.String()
}

// bodyShape builds sample bodies of a request schema: every property
// present with a value of its type, and one chosen place replaced.
type bodyShape struct {
	leaves []stringLeaf
}

const shapeDepth = 6

// sample returns a value of schema s with the value at path `at` replaced
// by repl (when at is not nil); it records the string leaves on the way
// when record is set.
func (b *bodyShape) sample(s *openapi3.Schema, here []any, at []any, repl any, record bool) any {
	if at != nil && samePath(here, at) {
		return repl
	}
	if s == nil || len(here) > shapeDepth {
		return "x"
	}
	for _, typ := range []string{openapi3.TypeObject, openapi3.TypeArray, openapi3.TypeString, openapi3.TypeInteger, openapi3.TypeNumber, openapi3.TypeBoolean} {
		ss := schemaFor(s, typ)
		if ss == nil {
			continue
		}
		switch typ {
		case openapi3.TypeObject:
			out := map[string]any{}
			names := make([]string, 0, len(ss.Properties))
			for name := range ss.Properties {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				out[name] = b.sample(ss.Properties[name].Value, appendPath(here, name), at, repl, record)
			}
			if ss.AdditionalProperties.Schema != nil {
				out["extra_key"] = b.sample(ss.AdditionalProperties.Schema.Value, appendPath(here, "extra_key"), at, repl, record)
			}
			return out
		case openapi3.TypeArray:
			var items *openapi3.Schema
			if ss.Items != nil {
				items = ss.Items.Value
			}
			return []any{b.sample(items, appendPath(here, 0), at, repl, record)}
		case openapi3.TypeString:
			if record {
				max := DefaultMaxLength
				if ss.MaxLength != nil {
					max = int(*ss.MaxLength)
				}
				b.leaves = append(b.leaves, stringLeaf{path: append([]any{}, here...), max: max})
			}
			if len(ss.Enum) > 0 {
				return ss.Enum[0]
			}
			return "x"
		case openapi3.TypeInteger, openapi3.TypeNumber:
			return 1
		case openapi3.TypeBoolean:
			return true
		}
	}
	return "x"
}

func appendPath(p []any, x any) []any {
	out := make([]any, len(p), len(p)+1)
	copy(out, p)
	return append(out, x)
}

func samePath(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// wrongType is a JSON value of another type than the schema's.
func wrongType(s *openapi3.Schema) any {
	switch {
	case schemaFor(s, openapi3.TypeString) != nil:
		return 12345
	case schemaFor(s, openapi3.TypeObject) != nil:
		return []any{"not", "an", "object"}
	default:
		return map[string]any{"not": "a scalar"}
	}
}

// Every route of the route table, the routes other areas add included,
// answers hostile JSON bodies with a 4xx, never a 5xx: a long string in
// every string field of its body schema (400 naming the field), a string
// one character over its published maxLength (400 naming it) and one at
// it (no length problem), malformed JSON, values of the wrong type, and a
// body over MAX_BODY_BYTES (413).
func TestHostileBodiesOnEveryRoute(t *testing.T) {
	t.Parallel()
	// The body limit and the long string are as small as the check allows:
	// the string is four times the longest maxLength of openapi.yaml
	// (65,536), the limit four times the string. Every request's body is
	// read and decoded under the race detector: 2 and 4 MB bodies made this
	// the suite's longest test.
	const bodyLimit = 1 << 20
	e := newEnv(t, func(c *config.Config) { c.MaxBodyBytes = bodyLimit })
	eng, err := search.Open(search.Config{DB: e.db})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Search = eng
	doc, _, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", 256<<10)
	if max := longestMaxLength(doc); 4*max > len(huge) || 4*len(huge) > bodyLimit {
		t.Fatalf("the longest maxLength (%d) needs a longer test string than %d bytes, or a larger body limit", max, len(huge))
	}
	checked := 0
	for _, rt := range e.srv.Routes() {
		if !bodyMethods[rt.Method] {
			continue
		}
		rule := bodyRuleFor(doc, rt)
		if rule.raw {
			continue // forms: TestHostileMultipartBodiesOnEveryRoute; raw uploads: uploads_test.go
		}
		route := rt.Method + " " + rt.Path
		path := samplePath(rt.Path)
		send := func(body any) *response {
			t.Helper()
			var raw []byte
			switch b := body.(type) {
			case []byte:
				raw = b
			default:
				raw, _ = json.Marshal(b)
			}
			r := e.doRaw(rt.Method, path, e.adminToken, raw, "application/json")
			if r.Code >= 500 {
				t.Errorf("%s: %d %.300s", route, r.Code, r.Body)
			}
			return r
		}
		lengthProblem := func(r *response, field string) string {
			if r.Code != http.StatusBadRequest {
				return ""
			}
			return r.field(field)
		}

		// Over the body limit: 413 whatever the route.
		if r := send([]byte(`{"name":"` + strings.Repeat("y", bodyLimit+1) + `"}`)); r.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: body over the limit: %d %.200s", route, r.Code, r.Body)
		}

		if rule.schema == nil {
			// No documented body: any string still has the default limit.
			if r := send(map[string]any{"name": huge}); r.Code != http.StatusBadRequest || r.field("name") == "" {
				t.Errorf("%s: undocumented body with a long string: %d %.200s", route, r.Code, r.Body)
			}
			checked++
			continue
		}
		shape := &bodyShape{}
		shape.sample(rule.schema, nil, nil, nil, true)
		if len(shape.leaves) == 0 {
			// A body without strings: a long string anywhere is refused.
			if r := send(map[string]any{"name": huge}); r.Code != http.StatusBadRequest {
				t.Errorf("%s: long string in a body without strings: %d %.200s", route, r.Code, r.Body)
			}
		}
		for _, leaf := range shape.leaves {
			name := leaf.String()
			body := func(v string) any { return shape.sample(rule.schema, nil, leaf.path, v, false) }
			if r := send(body(huge)); r.Code != http.StatusRequestEntityTooLarge &&
				(r.Code != http.StatusBadRequest || !strings.Contains(r.field(name), "at most")) {
				t.Errorf("%s: long %s: %d %.300s", route, name, r.Code, r.Body)
			}
			// Characters, not bytes: é is two bytes.
			if r := send(body(strings.Repeat("é", leaf.max+1))); !strings.Contains(lengthProblem(r, name), "at most") {
				t.Errorf("%s: %s of maxLength+1 (%d) characters: %d %.300s", route, name, leaf.max+1, r.Code, r.Body)
			}
			if r := send(body(strings.Repeat("a", leaf.max))); strings.Contains(lengthProblem(r, name), "at most") {
				t.Errorf("%s: %s of maxLength (%d) characters refused: %.300s", route, name, leaf.max, r.Body)
			}
			checked++
		}

		// Malformed JSON and bodies of the wrong shape.
		for _, raw := range []string{`{"`, `{"name": }`, `[1,2`, "\x00\xff", `{} {}`} {
			if r := send([]byte(raw)); r.Code != http.StatusBadRequest {
				t.Errorf("%s: malformed body %q: %d %.200s", route, raw, r.Code, r.Body)
			}
		}
		for _, raw := range []string{`[]`, `"text"`, `42`, `true`} {
			send([]byte(raw))
		}
		// Each property of the wrong type.
		if obj := schemaFor(rule.schema, openapi3.TypeObject); obj != nil {
			for prop, ref := range obj.Properties {
				r := send(shape.sample(rule.schema, nil, []any{prop}, wrongType(ref.Value), false))
				switch {
				case r.Code == http.StatusBadRequest:
					if r.errCode() != "malformed_json" && r.field(prop) == "" && len(fieldsOf(r)) == 0 {
						t.Errorf("%s: %s of the wrong type: 400 without fields: %s", route, prop, r.Body)
					}
				case r.Code == http.StatusNotFound && strings.Contains(rt.Path, ":"):
					// the handler looked the path's object up first
				case r.Code < 400:
					t.Errorf("%s: %s of the wrong type accepted: %d %.200s", route, prop, r.Code, r.Body)
				}
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d string fields checked: is the route table or openapi.yaml empty?", checked)
	}
}

// multipartSchema is a route's multipart/form-data body schema in
// openapi.yaml, or nil.
func multipartSchema(doc *openapi3.T, rt Route) *openapi3.Schema {
	item := doc.Paths.Value(openapiPath(rt.Path))
	if item == nil {
		return nil
	}
	op := item.GetOperation(rt.Method)
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("multipart/form-data")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// formPart is one part of a sample form: a value, or a file when file is
// set.
type formPart struct {
	name string
	data []byte
	file bool
}

// sampleForm builds a form of schema s with every property present: a
// string "x", a binary part a small PNG picture, an array one of its
// items.
func sampleForm(t *testing.T, s *openapi3.Schema) []formPart {
	var parts []formPart
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := s.Properties[name].Value
		if schemaFor(p, openapi3.TypeArray) != nil {
			p = schemaFor(p, openapi3.TypeArray).Items.Value
		}
		if p.Format == "binary" {
			parts = append(parts, formPart{name, pictureBytes(t, "png"), true})
		} else {
			parts = append(parts, formPart{name, []byte("x"), false})
		}
	}
	return parts
}

// encodeForm writes parts as a multipart/form-data body.
func encodeForm(parts []formPart) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		var pw io.Writer
		if p.file {
			pw, _ = w.CreateFormFile(p.name, p.name+".png")
		} else {
			pw, _ = w.CreateFormField(p.name)
		}
		pw.Write(p.data)
	}
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// replacePart returns form with the parts named name replaced by repl.
func replacePart(form []formPart, name string, repl ...formPart) []formPart {
	var out []formPart
	done := false
	for _, p := range form {
		if p.name != name {
			out = append(out, p)
		} else if !done {
			out, done = append(out, repl...), true
		}
	}
	return out
}

// Every route of the route table whose body openapi.yaml documents as a
// multipart/form-data form answers hostile forms with a 4xx carrying a
// JSON error, never a 5xx: a body over MAX_BODY_BYTES (413), a long value
// in every string field and one a character over its maxLength (400
// naming the field), more files than an array's maxItems (400 naming
// it), a file that is not what the route takes, and forms that are not
// forms (truncated, no boundary, thousands of parts). A path naming an
// item names a real one; a route with another path parameter may answer
// 404 first, having looked its object up.
func TestHostileMultipartBodiesOnEveryRoute(t *testing.T) {
	t.Parallel()
	const bodyLimit = 4 << 20
	e := newCollabEnvWith(t, func(c *config.Config) { c.MaxBodyBytes, c.UploadLimitBytes = bodyLimit, bodyLimit })
	doc, _, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	// A path naming an item names a real one, so that its form is read.
	pathOf := strings.NewReplacer(":item_id", e.video)
	huge := strings.Repeat("x", 256<<10)
	if max := longestMaxLength(doc); 4*max > len(huge) || 4*len(huge) > bodyLimit {
		t.Fatalf("the longest maxLength (%d) needs a longer test string than %d bytes, or a larger body limit", max, len(huge))
	}
	checked := map[string]bool{}
	for _, rt := range e.srv.Routes() {
		schema := multipartSchema(doc, rt)
		if !bodyMethods[rt.Method] || schema == nil {
			continue
		}
		route := rt.Method + " " + rt.Path
		checked[route] = true
		path := samplePath(pathOf.Replace(rt.Path))
		lookup := strings.Contains(path, "/x/") || strings.HasSuffix(path, "/x")
		send := func(what string, body []byte, ct string) *response {
			t.Helper()
			r := e.doRaw(rt.Method, path, e.adminToken, body, ct)
			if r.Code >= 500 || (r.Code >= 400 && r.errCode() == "") {
				t.Errorf("%s: %s: %d %.300s", route, what, r.Code, r.Body)
			}
			return r
		}
		refused := func(what string, r *response, status int, field string) {
			t.Helper()
			switch {
			case lookup && r.Code == http.StatusNotFound:
			case r.Code != status:
				t.Errorf("%s: %s: %d, want %d: %.300s", route, what, r.Code, status, r.Body)
			case field != "" && r.field(field) == "":
				t.Errorf("%s: %s: 400 without fields.%s: %.300s", route, what, field, r.Body)
			}
		}
		form := sampleForm(t, schema)

		// Over the body limit, in the first file part.
		for _, p := range form {
			if p.file {
				big := replacePart(form, p.name, formPart{p.name, bytes.Repeat([]byte{0x89}, bodyLimit+1), true})
				body, ct := encodeForm(big)
				refused("body over the limit", send("body over the limit", body, ct), http.StatusRequestEntityTooLarge, "")
				break
			}
		}
		for name, ref := range schema.Properties {
			prop := ref.Value
			if ss := schemaFor(prop, openapi3.TypeString); ss != nil && ss.Format != "binary" {
				body, ct := encodeForm(replacePart(form, name, formPart{name, []byte(huge), false}))
				if r := send("long "+name, body, ct); r.Code != http.StatusRequestEntityTooLarge {
					refused("long "+name, r, http.StatusBadRequest, name)
				}
				if ss.MaxLength != nil {
					over := []byte(strings.Repeat("é", int(*ss.MaxLength)+1))
					body, ct := encodeForm(replacePart(form, name, formPart{name, over, false}))
					refused(name+" over maxLength", send(name+" over maxLength", body, ct), http.StatusBadRequest, name)
				}
			}
			if as := schemaFor(prop, openapi3.TypeArray); as != nil {
				if as.MaxItems != nil {
					var many []formPart
					for range *as.MaxItems + 1 {
						many = append(many, formPart{name, pictureBytes(t, "png"), true})
					}
					body, ct := encodeForm(replacePart(form, name, many...))
					refused("too many "+name, send("too many "+name, body, ct), http.StatusBadRequest, name)
				}
				prop = as.Items.Value
			}
			if prop.Format == "binary" {
				// Not a picture, nor a caption, nor anything in particular;
				// an upload store takes it.
				body, ct := encodeForm(replacePart(form, name, formPart{name, []byte("\x00\xffnot <b>what</b> you want"), true}))
				send("a file of junk as "+name, body, ct)
			}
		}
		// Forms that are not forms.
		send("truncated form", []byte("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nA"), "multipart/form-data; boundary=b")
		send("form without a boundary", []byte("--b\r\n"), "multipart/form-data")
		many := append([]formPart{}, form...)
		for i := range 5000 {
			many = append(many, formPart{fmt.Sprintf("f%d", i), []byte("v"), false})
		}
		body, ct := encodeForm(many)
		send("a form of 5000 parts", body, ct)
	}
	for _, want := range []string{"POST /api/data/train/logos", "POST /api/data/v3/items/:item_id/captions", "POST /files/uploadstore/*path"} {
		if !checked[want] {
			t.Errorf("%s not walked (walked %v)", want, checked)
		}
	}
}

func fieldsOf(r *response) map[string]string {
	var body struct {
		Error struct {
			Fields map[string]string `json:"fields"`
		} `json:"error"`
	}
	r.decode(&body)
	return body.Error.Fields
}

// Every string a request body schema describes publishes its maxLength, so
// clients know the limit the server enforces (checkBody reads the same
// document).
func TestRequestBodyStringsPublishMaxLength(t *testing.T) {
	t.Parallel()
	doc, _, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			mt := op.RequestBody.Value.Content.Get("application/json")
			if mt == nil || mt.Schema == nil {
				continue
			}
			var visit func(s *openapi3.Schema, where string, depth int)
			visit = func(s *openapi3.Schema, where string, depth int) {
				if s == nil || depth > 10 {
					return
				}
				if s.Type != nil && s.Type.Is(openapi3.TypeString) && s.MaxLength == nil && len(s.Enum) == 0 {
					t.Errorf("%s %s: string %s has no maxLength", method, path, where)
				}
				for name, p := range s.Properties {
					visit(p.Value, where+"."+name, depth+1)
				}
				if s.AdditionalProperties.Schema != nil {
					visit(s.AdditionalProperties.Schema.Value, where+".*", depth+1)
				}
				if s.Items != nil {
					visit(s.Items.Value, where+"[]", depth+1)
				}
				for _, group := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
					for _, ref := range group {
						visit(ref.Value, where, depth+1)
					}
				}
			}
			visit(mt.Schema.Value, "body", 0)
		}
	}
}

// The findings of issue 9: a long role or group name answered 500 (the
// database refused the index row).
func TestLongNamesAnswer400(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	huge := strings.Repeat("n", 2<<20)
	for _, path := range []string{"/api/data/roles", "/api/data/v3/groups"} {
		r := e.do("POST", path, e.adminToken, map[string]any{"name": huge}).status(400)
		if got := r.field("name"); got != "must be at most 255 characters" {
			t.Errorf("%s: fields.name %q", path, got)
		}
	}
	e.do("POST", "/api/data/roles", e.adminToken, map[string]any{"name": strings.Repeat("ü", 255)}).status(201)
	e.do("POST", "/api/data/v3/groups", e.adminToken, map[string]any{"name": strings.Repeat("n", 256)}).status(400)
}

// longestMaxLength is the largest maxLength of any schema in doc.
func longestMaxLength(doc *openapi3.T) int {
	longest := 0
	var walk func(s *openapi3.Schema, seen map[*openapi3.Schema]bool)
	walk = func(s *openapi3.Schema, seen map[*openapi3.Schema]bool) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.MaxLength != nil && int(*s.MaxLength) > longest {
			longest = int(*s.MaxLength)
		}
		for _, p := range s.Properties {
			walk(p.Value, seen)
		}
		if s.Items != nil {
			walk(s.Items.Value, seen)
		}
		if s.AdditionalProperties.Schema != nil {
			walk(s.AdditionalProperties.Schema.Value, seen)
		}
		for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
			for _, r := range list {
				walk(r.Value, seen)
			}
		}
	}
	seen := map[*openapi3.Schema]bool{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			for _, mt := range op.RequestBody.Value.Content {
				if mt.Schema != nil {
					walk(mt.Schema.Value, seen)
				}
			}
		}
	}
	return longest
}
