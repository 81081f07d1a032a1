package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
)

// searchRule is the body rule of POST /api/data/search: the deepest
// request schema of the document (oneOf, $ref, additionalProperties).
func searchRule(t testing.TB) bodyRule {
	doc, _, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	return bodyRuleFor(doc, Route{Method: http.MethodPost, Path: "/api/data/search"})
}

func runCheckBody(rule bodyRule, body []byte, limit int64) ([]byte, error) {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	err := checkBody(c, rule, limit)
	rest := new(bytes.Buffer)
	rest.ReadFrom(c.Request.Body)
	return rest.Bytes(), err
}

// The checker names the JSON path of an over-long string, counts
// characters, finds strings under oneOf and additionalProperties, refuses
// long member names, and hands the body on unchanged.
func TestCheckBodyPaths(t *testing.T) {
	t.Parallel()
	rule := searchRule(t)
	long := strings.Repeat("é", 257)
	for body, field := range map[string]string{
		`{"query":"` + strings.Repeat("q", 2049) + `"}`:                                          "query",
		`{"filters":{"terms":[{"field":"a","value":"x"},{"field":"b","value":"` + long + `"}]}}`: "filters.terms[1].value",
		`{"filters":{"exists":[{"field":"` + long + `"}]}}`:                                      "filters.exists[0].field",
		`{"filters":{"exists":["` + long + `"]}}`:                                                "filters.exists[0]",
		`{"hit_counts":{"` + long + `":1}}`:                                                      "hit_counts",
		`{"unknown":{"deep":["` + long + `"]}}`:                                                  "unknown.deep[0]",
		`"` + long + `"`:                                                                         "body",
	} {
		_, err := runCheckBody(rule, []byte(body), 1<<20)
		ae, ok := apperr.As(err)
		if !ok || ae.Status != http.StatusBadRequest || ae.Fields[field] == "" {
			t.Errorf("%.60s...: %v, want a problem with %s", body, err, field)
		}
	}
	ok := `{"query":"` + strings.Repeat("é", 2048) + `","filters":{"terms":[{"field":"a","value":12}]}}`
	rest, err := runCheckBody(rule, []byte(ok), 1<<20)
	if err != nil || string(rest) != ok {
		t.Fatalf("a good body: %v; handed on %d bytes", err, len(rest))
	}
	if _, err := runCheckBody(rule, []byte(`{"query":"x"}  `+strings.Repeat(" ", 100)), 50); err == nil {
		t.Fatal("a body over the limit passed")
	} else if ae, _ := apperr.As(err); ae == nil || ae.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := runCheckBody(bodyRule{}, []byte(`not json`), 1<<20); err != nil {
		t.Fatalf("a route without a JSON body refused a non-JSON body: %v", err)
	}
	if _, err := runCheckBody(rule, []byte(`{"query": }`), 1<<20); err == nil {
		t.Fatal("malformed JSON passed")
	}
}

// FuzzCheckBody: whatever the body, the checker answers nil, a 400 or a
// 413, never panics, and hands on exactly the bytes it read.
func FuzzCheckBody(f *testing.F) {
	for _, s := range []string{`{}`, `{"query":"x"}`, `{"filters":{"exists":[{"field":"a","value":true}]}}`,
		`[1,2,{"a":"b"}]`, `{"a":`, `"x"`, `{} {}`, "\xff\xfe", `{"hit_counts":{"a":1,"b":"c"}}`} {
		f.Add([]byte(s))
	}
	rule := searchRule(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range []bodyRule{rule, {}} {
			rest, err := runCheckBody(r, b, 4096)
			if err != nil {
				ae, ok := apperr.As(err)
				if !ok || (ae.Status != http.StatusBadRequest && ae.Status != http.StatusRequestEntityTooLarge) {
					t.Fatalf("%q: %v", b, err)
				}
				continue
			}
			if !bytes.Equal(rest, b) {
				t.Fatalf("%q: handed on %q", b, rest)
			}
		}
	})
}
