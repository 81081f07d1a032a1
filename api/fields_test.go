package api

import (
	"fmt"
	"strings"
	"testing"
)

type fieldBody struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	DisplayOrder int    `json:"display_order"`
	DataType     string `json:"data_type"`
	CreatedAt    string `json:"created_at"`
	UpdatedAt    string `json:"updated_at"`
}

func (e *env) createField(token, name, dataType string) fieldBody {
	e.t.Helper()
	var f fieldBody
	e.do("POST", "/api/data/v3/fields", token, map[string]any{"name": name, "description": "about " + name, "data_type": dataType}).
		status(201).decode(&f)
	return f
}

func TestCustomFieldsCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.createField(e.adminToken, "Rights", "string")
	if a.ID == "" || a.Name != "Rights" || a.Description != "about Rights" || a.DataType != "string" || a.DisplayOrder != 0 {
		t.Fatalf("created %+v", a)
	}
	b := e.createField(e.adminToken, "Air date", "date")
	if b.DisplayOrder != 1 {
		t.Fatalf("second field order %d", b.DisplayOrder)
	}
	if e.auditCount("field", "create", a.ID) != 1 {
		t.Fatal("field create not audited")
	}

	// Validation and uniqueness.
	e.do("POST", "/api/data/v3/fields", e.adminToken, map[string]any{"name": "X", "data_type": "text"}).status(400)
	e.do("POST", "/api/data/v3/fields", e.adminToken, map[string]any{"name": " ", "data_type": "bool"}).status(400)
	if r := e.do("POST", "/api/data/v3/fields", e.adminToken, map[string]any{"name": "rights", "data_type": "bool"}); r.Code != 409 || r.errCode() != "name_taken" {
		t.Fatalf("duplicate name: %d %s", r.Code, r.Body)
	}

	var got fieldBody
	e.do("GET", "/api/data/v3/fields/"+a.ID, e.adminToken, nil).status(200).decode(&got)
	if got != a {
		t.Fatalf("get %+v, want %+v", got, a)
	}
	e.do("GET", "/api/data/v3/fields/nope", e.adminToken, nil).status(404)

	// Only name and description change; data_type never.
	var p fieldBody
	e.do("PATCH", "/api/data/v3/fields/"+a.ID, e.adminToken, map[string]any{"name": "Licence"}).status(200).decode(&p)
	if p.Name != "Licence" || p.Description != "about Rights" || p.DataType != "string" {
		t.Fatalf("patched %+v", p)
	}
	if r := e.do("PATCH", "/api/data/v3/fields/"+a.ID, e.adminToken, map[string]any{"data_type": "number"}); r.Code != 400 || r.field("data_type") == "" {
		t.Fatalf("data_type change: %d %s", r.Code, r.Body)
	}
	e.do("PATCH", "/api/data/v3/fields/"+a.ID, e.adminToken, map[string]any{"data_type": "string", "description": "d"}).status(200)
	e.do("PATCH", "/api/data/v3/fields/"+a.ID, e.adminToken, map[string]any{"name": "air DATE"}).status(409)
	if e.auditCount("field", "update", a.ID) != 2 {
		t.Fatal("field updates not audited")
	}

	d := e.do("DELETE", "/api/data/v3/fields/"+b.ID, e.adminToken, nil).status(200).json()
	if d["deleted"] != true {
		t.Fatalf("delete %v", d)
	}
	e.do("GET", "/api/data/v3/fields/"+b.ID, e.adminToken, nil).status(404)
	e.do("DELETE", "/api/data/v3/fields/"+b.ID, e.adminToken, nil).status(404)
	if e.auditCount("field", "delete", b.ID) != 1 {
		t.Fatal("field delete not audited")
	}

	// A reader without fields:write reads and cannot change.
	_, reader := e.userWithScopes("reader@example.com", "fields:read")
	e.do("GET", "/api/data/v3/fields/"+a.ID, reader, nil).status(200)
	e.do("PATCH", "/api/data/v3/fields/"+a.ID, reader, map[string]any{"name": "Mine"}).status(403)
	e.do("DELETE", "/api/data/v3/fields/"+a.ID, reader, nil).status(403)
}

func TestCustomFieldsPagingAndOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var ids []string
	for i := range 5 {
		ids = append(ids, e.createField(e.adminToken, fmt.Sprintf("F%d", i), "number").ID)
	}
	type page struct {
		Fields       []fieldBody `json:"fields"`
		NextPage     string      `json:"next_page"`
		PreviousPage string      `json:"previous_page"`
	}
	get := func(query string) page {
		t.Helper()
		var p page
		e.do("GET", "/api/data/v3/fields?limit=2"+query, e.adminToken, nil).status(200).decode(&p)
		return p
	}
	idsOf := func(p page) string {
		var out []string
		for _, f := range p.Fields {
			out = append(out, f.ID)
		}
		return strings.Join(out, ",")
	}
	var got []string
	var pages []page
	token := ""
	for n := 0; ; n++ {
		p := get("&page-token=" + token)
		pages = append(pages, p)
		got = append(got, idsOf(p))
		if n == 0 && p.PreviousPage != "" {
			t.Fatalf("first page has a previous page %q", p.PreviousPage)
		}
		if p.NextPage == "" {
			break
		}
		token = p.NextPage
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") || len(pages) != 3 {
		t.Fatalf("paged %v (%d pages), want %v", got, len(pages), ids)
	}
	// Every later page leads back to the one before it, by either spelling
	// of the parameter; walking back from the last page ends on the first.
	for n := len(pages) - 1; n > 0; n-- {
		if pages[n].PreviousPage == "" {
			t.Fatalf("page %d has no previous_page", n)
		}
		for _, param := range []string{"&page-token=", "&page_token="} {
			back := get(param + pages[n].PreviousPage)
			if idsOf(back) != got[n-1] || back.NextPage != pages[n-1].NextPage || back.PreviousPage != pages[n-1].PreviousPage {
				t.Fatalf("previous_page of page %d (%s) gave %s next %q previous %q, want %s next %q previous %q", n, param,
					idsOf(back), back.NextPage, back.PreviousPage, got[n-1], pages[n-1].NextPage, pages[n-1].PreviousPage)
			}
		}
	}
	// From an offset inside the first page, the previous page starts at 0.
	if p := get("&offset=1"); idsOf(p) != ids[1]+","+ids[2] || idsOf(get("&page-token="+p.PreviousPage)) != ids[0]+","+ids[1] {
		t.Fatalf("offset 1: %s, previous %q", idsOf(p), p.PreviousPage)
	}
	e.do("GET", "/api/data/v3/fields?limit=0", e.adminToken, nil).status(400)
	e.do("GET", "/api/data/v3/fields?limit=1001", e.adminToken, nil).status(400)
	e.do("GET", "/api/data/v3/fields?page-token=garbage", e.adminToken, nil).status(400)

	// The last field first; the answer is the whole order.
	var ord struct {
		Fields []struct {
			ID    string `json:"id"`
			Order int    `json:"order"`
		} `json:"fields"`
	}
	e.do("PUT", "/api/data/v3/fields/order", e.adminToken, map[string]any{"fields": []map[string]any{
		{"id": ids[4], "order": 0}, {"id": ids[0], "order": 10}}}).status(200).decode(&ord)
	if len(ord.Fields) != 5 || ord.Fields[0].ID != ids[4] || ord.Fields[0].Order != 0 || ord.Fields[4].ID != ids[0] || ord.Fields[4].Order != 10 {
		t.Fatalf("order %+v", ord)
	}
	var list page
	e.do("GET", "/api/data/v3/fields", e.adminToken, nil).status(200).decode(&list)
	if list.Fields[0].ID != ids[4] || list.Fields[4].ID != ids[0] {
		t.Fatalf("list after order %+v", list.Fields)
	}
	if r := e.do("PUT", "/api/data/v3/fields/order", e.adminToken, map[string]any{"fields": []map[string]any{{"id": "nope", "order": 1}}}); r.Code != 400 || r.field("fields[0].id") == "" {
		t.Fatalf("unknown field in order: %d %s", r.Code, r.Body)
	}
	e.do("PUT", "/api/data/v3/fields/order", e.adminToken, map[string]any{"fields": []map[string]any{{"id": ids[1], "order": -1}}}).status(400)
	e.do("PUT", "/api/data/v3/fields/order", e.adminToken, map[string]any{}).status(400)
	if e.auditCount("field", "order", "") != 1 {
		t.Fatal("order not audited once")
	}
}
