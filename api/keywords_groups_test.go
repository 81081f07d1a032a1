package api

import (
	"fmt"
	"strings"
	"testing"
)

type keywordGroupBody struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Color     string   `json:"color"`
	Words     []string `json:"words"`
	CreatedAt string   `json:"created_at"`
	UpdatedAt string   `json:"updated_at"`
}

func (e *env) createKeywordGroup(name, color string, words ...string) keywordGroupBody {
	e.t.Helper()
	var g keywordGroupBody
	e.do("POST", "/api/data/keywords/groups", e.adminToken, map[string]any{"name": name, "color": color, "words": words}).
		status(201).decode(&g)
	return g
}

func TestKeywordGroupsCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const groups = "/api/data/keywords/groups"

	// An empty platform lists no group (a list, not null).
	if r := e.do("GET", groups, e.adminToken, nil).status(200).json(); len(r["groups"].([]any)) != 0 {
		t.Fatalf("groups %v", r)
	}

	g := e.createKeywordGroup("  Weather  ", "#FFAA00", " rain ", "Café", "cafe", "CAFÉ", "New York", "rain")
	if g.ID == "" || g.Name != "Weather" || g.Color != "#ffaa00" || strings.Join(g.Words, "|") != "rain|Café|New York" {
		t.Fatalf("created %+v", g)
	}
	if e.auditCount("keywordgroup", "create", g.ID) != 1 {
		t.Fatal("no create audit event")
	}
	var got keywordGroupBody
	e.do("GET", groups+"/"+g.ID, e.adminToken, nil).status(200).decode(&got)
	if got.Name != "Weather" || len(got.Words) != 3 || got.CreatedAt == "" {
		t.Fatalf("get %+v", got)
	}
	// Without words: an empty list.
	empty := e.createKeywordGroup("Alpha", "#000000")
	if empty.Words == nil || len(empty.Words) != 0 {
		t.Fatalf("no words: %+v", empty)
	}
	var list struct{ Groups []keywordGroupBody }
	e.do("GET", groups, e.adminToken, nil).status(200).decode(&list)
	if len(list.Groups) != 2 || list.Groups[0].Name != "Alpha" || list.Groups[1].Name != "Weather" {
		t.Fatalf("list %+v", list)
	}

	// Names are unique whatever their case, on create and on rename.
	if r := e.do("POST", groups, e.adminToken, map[string]any{"name": "WEATHER", "color": "#123456"}); r.Code != 409 || r.errCode() != "name_taken" {
		t.Fatalf("duplicate name: %d %s", r.Code, r.Body)
	}
	if r := e.do("PUT", groups+"/"+empty.ID, e.adminToken, map[string]any{"name": "weather", "color": "#123456"}); r.Code != 409 {
		t.Fatalf("rename onto a taken name: %d %s", r.Code, r.Body)
	}

	// Update replaces name, colour and words.
	var up keywordGroupBody
	e.do("PUT", groups+"/"+g.ID, e.adminToken, map[string]any{"name": "Storms", "color": "#0000ff", "words": []string{"thunder"}}).
		status(200).decode(&up)
	if up.ID != g.ID || up.Name != "Storms" || up.Color != "#0000ff" || strings.Join(up.Words, "|") != "thunder" || up.CreatedAt != g.CreatedAt {
		t.Fatalf("updated %+v", up)
	}
	if e.auditCount("keywordgroup", "update", g.ID) != 1 {
		t.Fatal("no update audit event")
	}

	// Unknown ids.
	e.do("GET", groups+"/nope", e.adminToken, nil).status(404)
	e.do("PUT", groups+"/nope", e.adminToken, map[string]any{"name": "N", "color": "#000000"}).status(404)
	e.do("DELETE", groups+"/nope", e.adminToken, nil).status(404)

	// Delete.
	d := e.do("DELETE", groups+"/"+g.ID, e.adminToken, nil).status(200).json()
	if d["id"] != g.ID || d["deleted"] != true {
		t.Fatalf("delete %v", d)
	}
	if e.auditCount("keywordgroup", "delete", g.ID) != 1 {
		t.Fatal("no delete audit event")
	}
	e.do("GET", groups+"/"+g.ID, e.adminToken, nil).status(404)
	// The name is free again.
	e.createKeywordGroup("weather", "#010203")

	// The audit filters list the keyword group actions.
	var filters struct {
		TargetKinds []struct {
			Name       string   `json:"name"`
			ActionKeys []string `json:"action_keys"`
		} `json:"target_kinds"`
	}
	e.do("GET", "/api/data/audit/filters", e.adminToken, nil).status(200).decode(&filters)
	found := false
	for _, k := range filters.TargetKinds {
		found = found || (k.Name == "keywordgroup" && strings.Join(k.ActionKeys, ",") == "create,delete,update")
	}
	if !found {
		t.Fatalf("audit filters %+v", filters)
	}
}

func TestKeywordGroupValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const groups = "/api/data/keywords/groups"
	tooMany := make([]string, 501)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("w%d", i)
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"color": "#000000"}, "name"},
		{map[string]any{"name": "   ", "color": "#000000"}, "name"},
		{map[string]any{"name": "N"}, "color"},
		{map[string]any{"name": "N", "color": "red"}, "color"},
		{map[string]any{"name": "N", "color": "#12345g"}, "color"},
		{map[string]any{"name": "N", "color": "#1234567"}, "color"},
		{map[string]any{"name": "N", "color": "#fff"}, "color"},
		{map[string]any{"name": "N", "color": "#000000", "words": []string{"ok", "  "}}, "words[1]"},
		{map[string]any{"name": "N", "color": "#000000", "words": []string{"?!"}}, "words[0]"},
		{map[string]any{"name": "N", "color": "#000000", "words": []string{strings.Repeat("é", 101)}}, "words[0]"},
		{map[string]any{"name": "N", "color": "#000000", "words": tooMany}, "words"},
		{map[string]any{"name": "N", "color": "#000000", "words": "rain"}, "words"},
		{map[string]any{"name": strings.Repeat("n", 256), "color": "#000000"}, "name"},
	} {
		r := e.do("POST", groups, e.adminToken, c.body)
		if r.Code != 400 || r.field(c.field) == "" {
			t.Errorf("%v: %d %s, want 400 naming %s", c.body, r.Code, r.Body, c.field)
		}
	}
	// At the limits: 500 words of 100 characters.
	words := make([]string, 500)
	for i := range words {
		words[i] = fmt.Sprintf("%03d%s", i, strings.Repeat("é", 97))
	}
	g := e.createKeywordGroup(strings.Repeat("ü", 255), "#abcdef", words...)
	if len(g.Words) != 500 {
		t.Fatalf("%d words kept", len(g.Words))
	}
	if e.count(`SELECT count(*) FROM audit_events WHERE target_kind = 'keywordgroup'`) != 1 {
		t.Fatal("refused requests were audited")
	}
}

// Reading groups takes keywords:read, changing them keywords:write; both
// are the platform's groups, whoever created them.
func TestKeywordGroupScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := e.createKeywordGroup("Brands", "#ff0000", "acme")
	_, reader := e.userWithScopes("reader@example.com", "keywords:read")
	_, writer := e.userWithScopes("writer@example.com", "keywords:read", "keywords:write")
	e.do("GET", "/api/data/keywords/groups/"+g.ID, reader, nil).status(200)
	if r := e.do("POST", "/api/data/keywords/groups", reader, map[string]any{"name": "X", "color": "#000000"}); r.Code != 403 || r.errCode() != "missing_scope" {
		t.Fatalf("reader creates: %d %s", r.Code, r.Body)
	}
	e.do("DELETE", "/api/data/keywords/groups/"+g.ID, reader, nil).status(403)
	e.do("PUT", "/api/data/keywords/groups/"+g.ID, writer, map[string]any{"name": "Brands", "color": "#00ff00", "words": []string{"acme", "globex"}}).status(200)
	e.do("DELETE", "/api/data/keywords/groups/"+g.ID, writer, nil).status(200)
}
