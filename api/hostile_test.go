package api

import (
	"encoding/json"
	"fmt"
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
// answers hostile JSON bodies with a 4xx, never a 5xx: a 2 MB string in
// every string field of its body schema (400 naming the field), a string
// one character over its published maxLength (400 naming it) and one at
// it (no length problem), malformed JSON, values of the wrong type, and a
// body over MAX_BODY_BYTES (413).
func TestHostileBodiesOnEveryRoute(t *testing.T) {
	t.Parallel()
	const bodyLimit = 4 << 20
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
	huge := strings.Repeat("x", 2<<20)
	checked := 0
	for _, rt := range e.srv.Routes() {
		if !bodyMethods[rt.Method] {
			continue
		}
		rule := bodyRuleFor(doc, rt)
		if rule.raw {
			continue // uploads stream their own bodies (uploads_test.go)
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
				t.Errorf("%s: undocumented body with a 2 MB string: %d %.200s", route, r.Code, r.Body)
			}
			checked++
			continue
		}
		shape := &bodyShape{}
		shape.sample(rule.schema, nil, nil, nil, true)
		if len(shape.leaves) == 0 {
			// A body without strings: a 2 MB string anywhere is refused.
			if r := send(map[string]any{"name": huge}); r.Code != http.StatusBadRequest {
				t.Errorf("%s: 2 MB string in a body without strings: %d %.200s", route, r.Code, r.Body)
			}
		}
		for _, leaf := range shape.leaves {
			name := leaf.String()
			body := func(v string) any { return shape.sample(rule.schema, nil, leaf.path, v, false) }
			if r := send(body(huge)); r.Code != http.StatusRequestEntityTooLarge &&
				(r.Code != http.StatusBadRequest || !strings.Contains(r.field(name), "at most")) {
				t.Errorf("%s: 2 MB %s: %d %.300s", route, name, r.Code, r.Body)
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

// The findings of issue 9: a 2 MB role or group name answered 500 (the
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
