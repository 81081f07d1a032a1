package search

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/apperr"
)

func decodeRequest(t *testing.T, body string) Request {
	t.Helper()
	var req Request
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return req
}

// A body with limit 0 (or below) is refused; without limit it asks for the
// default; above the maximum it is clamped (DECISIONS.md). Issue 9: limit 0
// answered 20 results.
func TestCompileLimitFromJSON(t *testing.T) {
	cat := testCatalogue(t)
	for body, want := range map[string]int{`{}`: DefaultLimit, `{"limit":1}`: 1, `{"limit":5000}`: MaxLimit, `{"limit":null}`: DefaultLimit} {
		p, err := Compile(decodeRequest(t, body), cat, testNow)
		if err != nil || p.Limit != want {
			t.Errorf("%s: limit %v, %v; want %d", body, p, err, want)
		}
	}
	for _, body := range []string{`{"limit":0}`, `{"limit":-1}`} {
		f := invalidFields(t, Validate(decodeRequest(t, body), cat))
		if !strings.Contains(f["limit"], "between 1 and 1000") {
			t.Errorf("%s: %v", body, f)
		}
	}
	var seg SegmentRequest
	if err := json.Unmarshal([]byte(`{"limit":0,"filters":{"exists":["time"]}}`), &seg); err != nil {
		t.Fatal(err)
	}
	if f := invalidFields(t, ValidateSegments(seg, NewCatalogue(ScopeSegments))); f["limit"] == "" {
		t.Errorf("segments limit 0: %v", f)
	}
}

// only leaves unknown names out and knows the original product's names.
func TestCompileOnly(t *testing.T) {
	cat := testCatalogue(t)
	for _, tc := range []struct {
		only, want []string
	}{
		{[]string{"name", "no_such_field", "mediainfo"}, []string{"name", "mediainfo"}},
		{[]string{"no_such_field"}, []string{FieldID}},
		{[]string{"gm_item_id"}, []string{FieldID}},
		{[]string{"gm_item_id", "_id", "name"}, []string{FieldID, "name"}},
		{[]string{FieldContainerGroups}, []string{FieldID}}, // internal: never a field
		{nil, nil},
	} {
		p, err := Compile(Request{Only: tc.only}, cat, testNow)
		if err != nil || !slices.Equal(p.Only, tc.want) {
			t.Errorf("only %v: %v %v, want %v", tc.only, p, err, tc.want)
		}
	}
	doc := map[string]any{"_id": "i1", "name": "a", FieldContainerGroups: []string{"g"}}
	if got := Project(doc, []string{FieldID}); len(got) != 1 || got["_id"] != "i1" {
		t.Errorf("project on _id: %v", got)
	}
}

// exists and not_exists take field names or {"field", "value"} objects;
// value false asks for the opposite; gm_item_id and extracted are aliases.
func TestExistsObjectFormAndAliases(t *testing.T) {
	cat := testCatalogue(t)
	req := decodeRequest(t, `{"filters":{
		"exists": ["mediainfo", {"field": "extracted", "value": true}, {"field": "captions", "value": false}, {"field": "nsfw"}],
		"not_exists": [{"field": "exiv2", "value": true}, {"field": "size", "value": false}, "mime_type"]}}`)
	if want := []string{"mediainfo", "extracted", "nsfw", "size"}; !slices.Equal(req.Filters.Exists, want) {
		t.Errorf("exists %v, want %v", req.Filters.Exists, want)
	}
	if want := []string{"captions", "exiv2", "mime_type"}; !slices.Equal(req.Filters.NotExists, want) {
		t.Errorf("not_exists %v, want %v", req.Filters.NotExists, want)
	}
	p, err := Compile(req, cat, testNow)
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, e := range p.Exists {
		fields = append(fields, e.Field)
	}
	if want := []string{"mediainfo", "store", "nsfw", "size"}; !slices.Equal(fields, want) {
		t.Errorf("exists resolved to %v, want %v", fields, want)
	}
	if !slices.Contains(p.Exists[1].Leaves, "store.name") {
		t.Errorf("extracted leaves %v", p.Exists[1].Leaves)
	}

	// The echo of a request lists plain names.
	b, _ := json.Marshal(req.Filters)
	if !strings.Contains(string(b), `"exists":["mediainfo","extracted","nsfw","size"]`) {
		t.Errorf("echo %s", b)
	}

	// The alias works wherever a field is named.
	p, err = Compile(decodeRequest(t, `{"sort_fields":[{"field":"gm_item_id"}],
		"filters":{"terms":[{"field":"gm_item_id","value":"x"}]},
		"aggregations":{"terms":[{"name":"ids","field":"gm_item_id"}]}}`), cat, testNow)
	if err != nil || p.Sort[0].Field != FieldID || p.Terms[0].Field != FieldID || p.TermsAggs[0].Field != FieldID {
		t.Fatalf("aliases: %+v %v", p, err)
	}

	// Entries of another shape are type errors; unknown names are named as sent.
	var bad Request
	if err := json.Unmarshal([]byte(`{"filters":{"exists":[42]}}`), &bad); err == nil {
		t.Error("exists [42] decoded")
	}
	f := invalidFields(t, Validate(decodeRequest(t, `{"filters":{"exists":[{"field":"ghost","value":true}]}}`), cat))
	if !strings.Contains(f["filters.exists[0]"], `"ghost"`) {
		t.Errorf("unknown object entry: %v", f)
	}
	seg := SegmentRequest{}
	if err := json.Unmarshal([]byte(`{"filters":{"exists":[{"field":"time","value":false}]}}`), &seg); err != nil {
		t.Fatal(err)
	}
	if len(seg.Filters.Exists) != 0 || !slices.Equal(seg.Filters.NotExists, []string{"time"}) {
		t.Errorf("segment filters %+v", seg.Filters)
	}
}

// The query limit counts characters, as the published maxLength does.
func TestQueryLengthInCharacters(t *testing.T) {
	cat := testCatalogue(t)
	if err := Validate(Request{Query: strings.Repeat("é", maxQueryLen)}, cat); err != nil {
		t.Errorf("%d two-byte characters: %v", maxQueryLen, err)
	}
	if f := invalidFields(t, Validate(Request{Query: strings.Repeat("é", maxQueryLen+1)}, cat)); f["query"] == "" {
		t.Errorf("over the limit: %v", f)
	}
}

// FuzzRequestJSON: any body either fails to decode or compiles to a plan or
// a 400 naming fields; never a panic. exists entries keep their count.
func FuzzRequestJSON(f *testing.F) {
	for _, s := range []string{`{}`, `{"limit":0}`, `{"limit":5000,"only":["gm_item_id","nope"]}`,
		`{"filters":{"exists":[{"field":"extracted","value":true}],"not_exists":["size",{"field":"name","value":false}]}}`,
		`{"filters":{"exists":[{"field":5}]}}`, `{"filters":{"exists":[null]}}`, `{"filters":{"exists":[[]]}}`,
		`{"sort_fields":[{"field":"gm_item_id"}],"aggregations":{"terms":[{"name":"a","field":"extracted"}]}}`,
		`{"query":"\"x","filters":{"ranges":[{"field":"size","from":1}]}}`} {
		f.Add([]byte(s))
	}
	cat := NewCatalogue(ScopeItems)
	segCat := NewCatalogue(ScopeSegments)
	f.Fuzz(func(t *testing.T, b []byte) {
		var req Request
		if json.Unmarshal(b, &req) == nil {
			if _, err := Compile(req, cat, testNow); err != nil {
				if ae, ok := apperr.As(err); !ok || ae.Status != http.StatusBadRequest || len(ae.Fields) == 0 {
					t.Fatalf("%s: not a 400 naming fields: %v", b, err)
				}
			}
		}
		var seg SegmentRequest
		if json.Unmarshal(b, &seg) == nil {
			_, _ = CompileSegments(seg, segCat, testNow)
		}
	})
}

// A body's type errors name the field as sent, at any depth, for both
// request types (the decoders read the limit and the exists entries in
// the same pass as the other fields, through structs that embed them).
func TestDecodeErrorsNameTheField(t *testing.T) {
	for body, want := range map[string]string{
		`{"limit":"20"}`: "limit", `{"page":"x","limit":1}`: "page", `{"only":5}`: "only",
		`{"filters":5}`: "filters", `{"filters":{"ranges":[{"field":1}]}}`: "filters.ranges.field",
		`{"filters":{"multi_terms":{}}}`: "filters.multi_terms", `{"filters":{"exists":5}}`: "filters.exists",
	} {
		var req Request
		var seg SegmentRequest
		for _, dst := range []any{&req, &seg} {
			var te *json.UnmarshalTypeError
			if err := json.Unmarshal([]byte(body), dst); !errors.As(err, &te) || te.Field != want {
				t.Errorf("%T %s: %v, want a type error at %q", dst, body, err, want)
			}
		}
	}
	var req Request
	if err := json.Unmarshal([]byte(`{"fields":5}`), &req); err == nil || !strings.Contains(err.Error(), "Go struct field fields.fields ") {
		t.Errorf(`{"fields":5}: %v`, err)
	}
	if err := json.Unmarshal([]byte(`{"filters":{"terms":5}}`), &req); err == nil || !strings.Contains(err.Error(), "Go struct field fields.filters.terms ") {
		t.Errorf(`{"filters":{"terms":5}}: %v`, err)
	}
	// The limit is noted in the same pass: named (even 0), absent or null.
	for body, want := range map[string]bool{`{"limit":0}`: true, `{"limit":7}`: true, `{}`: false, `{"limit":null}`: false} {
		req, seg := Request{Limit: 3}, SegmentRequest{Limit: 3}
		if json.Unmarshal([]byte(body), &req) != nil || json.Unmarshal([]byte(body), &seg) != nil ||
			req.limitGiven != want || seg.limitGiven != want || (want != (req.Limit != 3)) || req.Limit != seg.Limit {
			t.Errorf("%s: limit %d given %v, segments %d %v", body, req.Limit, req.limitGiven, seg.Limit, seg.limitGiven)
		}
	}
}
