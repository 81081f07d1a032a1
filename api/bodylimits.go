package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
)

// Every string of a JSON request body has a maximum length, checked here,
// before any handler (and so before the database) sees the body. The limits
// are the maxLength values of the body's schema in openapi.yaml, so what is
// published is what is enforced; a string the schema does not describe (a
// free-form object, a route documented without a body) gets
// DefaultMaxLength. Object member names get DefaultMaxLength too. Lengths
// count characters (Unicode code points), as maxLength does.

// DefaultMaxLength bounds a string of a JSON body where openapi.yaml
// declares no maxLength: most such strings are names or ids, and 255
// characters keeps them within what a Postgres btree index accepts.
const DefaultMaxLength = 255

// maxLengthProblems is how many over-long strings one 400 names at most.
const maxLengthProblems = 20

var ginParam = regexp.MustCompile(`[:*]([A-Za-z0-9_]+)`)

// openapiPath turns a gin route path into its openapi.yaml key:
// "/api/data/roles/:id" -> "/api/data/roles/{id}".
func openapiPath(ginPath string) string { return ginParam.ReplaceAllString(ginPath, "{$1}") }

// bodyRule is how a route's request body is checked.
type bodyRule struct {
	// raw: the route documents a body that is not JSON (an upload); it is
	// left to the handler, which streams it.
	raw bool
	// schema is the documented JSON body schema; nil when the route
	// documents no JSON body (every string then gets DefaultMaxLength).
	schema *openapi3.Schema
}

// bodyRuleFor finds the route's request body in the OpenAPI document.
func bodyRuleFor(doc *openapi3.T, rt Route) bodyRule {
	item := doc.Paths.Value(openapiPath(rt.Path))
	if item == nil {
		return bodyRule{}
	}
	op := item.GetOperation(rt.Method)
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return bodyRule{}
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil {
		return bodyRule{raw: true}
	}
	if mt.Schema == nil {
		return bodyRule{}
	}
	return bodyRule{schema: mt.Schema.Value}
}

// bodyMethods are the methods whose bodies are checked.
var bodyMethods = map[string]bool{http.MethodPost: true, http.MethodPut: true, http.MethodPatch: true, http.MethodDelete: true}

// checkBody reads the body of a JSON route, puts it back for the handler,
// and refuses malformed JSON (when the route documents a JSON body) and
// strings over their maximum length with 400, a body over MAX_BODY_BYTES
// with 413.
func checkBody(c *gin.Context, rule bodyRule, limit int64) error {
	r := c.Request
	if rule.raw || !bodyMethods[r.Method] || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		return nil // not JSON: the handler refuses it
	}
	// limitBody bounds most routes already; this bound also covers the
	// ones it leaves to their handlers (/files/).
	raw, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return err // MaxBytesError renders as 413
	}
	if int64(len(raw)) > limit {
		return apperr.TooLarge("the request body is over %d bytes", limit)
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if rule.schema == nil {
			return nil // not a JSON route as far as we know: the handler decides
		}
		return jsonError(err)
	}
	if dec.More() && rule.schema != nil {
		return apperr.BadRequest(apperr.CodeMalformedJSON, "the body must hold a single JSON value")
	}
	lc := lengthCheck{problems: map[string]string{}}
	lc.walk(v, rule.schema, "")
	return invalidIf(lc.problems)
}

type lengthCheck struct {
	problems map[string]string
}

func (lc *lengthCheck) add(path, problem string) {
	if len(lc.problems) < maxLengthProblems {
		lc.problems[path] = problem
	}
}

// walk checks every string below v, whose schema is s (nil: unknown).
func (lc *lengthCheck) walk(v any, s *openapi3.Schema, path string) {
	switch x := v.(type) {
	case string:
		limit := DefaultMaxLength
		if ss := schemaFor(s, openapi3.TypeString); ss != nil && ss.MaxLength != nil {
			limit = int(*ss.MaxLength)
		}
		if tooLong(x, limit) {
			lc.add(orBody(path), fmt.Sprintf("must be at most %d characters", limit))
		}
	case map[string]any:
		obj := schemaFor(s, openapi3.TypeObject)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the same problems, in the same order, every time
		for _, k := range keys {
			if tooLong(k, DefaultMaxLength) {
				lc.add(orBody(path), fmt.Sprintf("has a member name longer than %d characters", DefaultMaxLength))
				continue
			}
			lc.walk(x[k], propertySchema(obj, k), joinPath(path, k))
		}
	case []any:
		var items *openapi3.Schema
		if as := schemaFor(s, openapi3.TypeArray); as != nil && as.Items != nil {
			items = as.Items.Value
		}
		for i, e := range x {
			lc.walk(e, items, path+"["+strconv.Itoa(i)+"]")
		}
	}
}

// tooLong reports whether s has more than limit characters, without
// counting a huge string to the end.
func tooLong(s string, limit int) bool {
	if len(s) <= limit {
		return false
	}
	if len(s) > limit*utf8.UTFMax {
		return true
	}
	return utf8.RuneCountInString(s) > limit
}

// schemaFor returns the schema among s and its oneOf/anyOf/allOf parts
// that describes values of type typ, or nil.
func schemaFor(s *openapi3.Schema, typ string) *openapi3.Schema {
	if s == nil {
		return nil
	}
	if s.Type != nil && s.Type.Is(typ) {
		return s
	}
	for _, group := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
		for _, ref := range group {
			if ref != nil {
				if found := schemaFor(ref.Value, typ); found != nil {
					return found
				}
			}
		}
	}
	if s.Type == nil && typ == openapi3.TypeObject && (len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil) {
		return s // an object schema that does not say "type: object"
	}
	return nil
}

// propertySchema is the schema of member k of an object of schema s: the
// property, else additionalProperties, else unknown.
func propertySchema(s *openapi3.Schema, k string) *openapi3.Schema {
	if s == nil {
		return nil
	}
	if p := s.Properties[k]; p != nil {
		return p.Value
	}
	for _, ref := range s.AllOf {
		if ref != nil && ref.Value != nil {
			if p := ref.Value.Properties[k]; p != nil {
				return p.Value
			}
		}
	}
	if s.AdditionalProperties.Schema != nil {
		return s.AdditionalProperties.Schema.Value
	}
	return nil
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func orBody(path string) string {
	if path == "" {
		return "body"
	}
	return path
}
