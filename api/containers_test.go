package api

import (
	"fmt"
	"net/url"
	"testing"
)

type containerPage struct {
	Containers []struct {
		ID                   string   `json:"id"`
		Name                 string   `json:"name"`
		Enabled              bool     `json:"enabled"`
		LastHarvestedFailure string   `json:"last_harvested_failure"`
		Groups               []string `json:"groups"`
	} `json:"containers"`
	Prefix     string `json:"prefix"`
	NextCursor string `json:"next_cursor"`
}

func (e *env) containerPage(token, locID, prefix, cursor string) containerPage {
	e.t.Helper()
	q := url.Values{}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var p containerPage
	e.do("GET", "/api/data/locations/"+locID+"/containers?"+q.Encode(), token, nil).status(200).decode(&p)
	return p
}

// More containers than one page: the first page carries a cursor, the
// second ends the list; prefixes and foreign cursors behave.
func TestContainersPaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	for i := range 120 {
		mkdirs(t, dir, fmt.Sprintf("c%03d", i))
	}
	id := e.createFSLocation(e.adminToken, "Many", dir)["id"].(string)
	if n := e.count(`SELECT count(*) FROM containers WHERE location_id = ?`, id); n != 120 {
		t.Fatalf("discovered %d containers, want 120", n)
	}
	// Directories made after creation are found (and recorded) by listing.
	mkdirs(t, dir, "d-late")

	first := e.containerPage(e.adminToken, id, "", "")
	if len(first.Containers) != 100 || first.NextCursor == "" || first.Containers[0].Name != "c000" {
		t.Fatalf("first page: %d containers, cursor %q", len(first.Containers), first.NextCursor)
	}
	c0 := first.Containers[0]
	if c0.Enabled || c0.LastHarvestedFailure != "0001-01-01T00:00:00Z" || c0.Groups == nil || c0.ID != e.containerOf(id, "c000") {
		t.Fatalf("container %+v", c0)
	}
	second := e.containerPage(e.adminToken, id, "", first.NextCursor)
	if len(second.Containers) != 21 || second.NextCursor != "" || second.Containers[0].Name != "c100" || second.Containers[20].Name != "d-late" {
		t.Fatalf("second page: %d containers, cursor %q", len(second.Containers), second.NextCursor)
	}
	if n := e.count(`SELECT count(*) FROM containers WHERE location_id = ? AND name = 'd-late'`, id); n != 1 {
		t.Fatal("listing did not record the new container")
	}

	pre := e.containerPage(e.adminToken, id, "c11", "")
	if len(pre.Containers) != 10 || pre.Prefix != "c11" || pre.NextCursor != "" {
		t.Fatalf("prefix page: %+v", pre)
	}
	for _, bad := range []string{"garbage!", "bm90LWpzb24", first.NextCursor + "x"} {
		r := e.do("GET", "/api/data/locations/"+id+"/containers?cursor="+url.QueryEscape(bad), e.adminToken, nil).status(400)
		if r.field("cursor") == "" {
			t.Errorf("cursor %q: %s", bad, r.Body)
		}
	}
	// A cursor of another listing (other prefix) is refused.
	r := e.do("GET", "/api/data/locations/"+id+"/containers?prefix=c&cursor="+url.QueryEscape(first.NextCursor), e.adminToken, nil).status(400)
	if r.field("cursor") == "" {
		t.Fatalf("foreign cursor: %s", r.Body)
	}
	e.do("GET", "/api/data/locations/nope/containers", e.adminToken, nil).status(404)
}

func TestContainerEnableDisable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "news", "sport"))["id"].(string)
	news := e.containerOf(id, "news")
	g := e.createGroup("Desk")

	got := e.do("PUT", "/api/data/containers", e.adminToken, map[string]any{"id": news, "location_id": id, "enabled": true}).status(200).json()
	if got["enabled"] != true || got["name"] != "news" || got["profile_id"] != "" {
		t.Fatalf("enable: %v", got)
	}
	if e.auditCount("container", "enable", news) != 1 {
		t.Fatal("no enable audit event")
	}
	var enabled []map[string]any
	e.do("GET", "/api/data/containers/enabled", e.adminToken, nil).status(200).decode(&enabled)
	if len(enabled) != 1 || enabled[0]["id"] != news {
		t.Fatalf("enabled list: %v", enabled)
	}
	if name := e.do("GET", "/api/data/v3/containers/"+news+"/name", e.adminToken, nil).status(200).json()["name"]; name != "news" {
		t.Fatalf("name %v", name)
	}
	e.do("GET", "/api/data/v3/containers/nope/name", e.adminToken, nil).status(404)

	// Profile and groups; sending the whole object back works.
	got["profile_id"] = "default"
	got["groups"] = []string{g}
	got = e.do("PUT", "/api/data/containers", e.adminToken, got).status(200).json()
	if got["profile_id"] != "default" || len(got["groups"].([]any)) != 1 || got["enabled"] != true {
		t.Fatalf("update: %v", got)
	}
	if e.auditCount("container", "update", news) != 1 {
		t.Fatal("no update audit event")
	}

	got = e.do("PUT", "/api/data/containers", e.adminToken, map[string]any{"id": news, "location_id": id, "enabled": false}).status(200).json()
	if got["enabled"] != false || len(got["groups"].([]any)) != 1 || got["profile_id"] != "default" {
		t.Fatalf("disable kept profile and groups? %v", got)
	}
	if e.auditCount("container", "disable", news) != 1 {
		t.Fatal("no disable audit event")
	}
	e.do("GET", "/api/data/containers/enabled", e.adminToken, nil).status(200).decode(&enabled)
	if len(enabled) != 0 {
		t.Fatalf("enabled list after disable: %v", enabled)
	}

	cases := []struct {
		body   map[string]any
		status int
		field  string
	}{
		{map[string]any{"id": "nope", "location_id": id, "enabled": true}, 404, ""},
		{map[string]any{"id": news, "location_id": "uploadstore", "enabled": true}, 404, ""},
		{map[string]any{"id": news, "location_id": id}, 400, "enabled"},
		{map[string]any{"location_id": id, "enabled": true}, 400, "id"},
		{map[string]any{"id": news, "location_id": id, "enabled": true, "profile_id": "nope"}, 400, "profile_id"},
		{map[string]any{"id": news, "location_id": id, "enabled": true, "groups": []string{"nope"}}, 400, "groups"},
		{map[string]any{"id": news, "location_id": id, "enabled": "yes"}, 400, "enabled"},
		{map[string]any{"id": news, "location_id": id, "enabled": true, "admin": true}, 400, "admin"},
	}
	for _, tc := range cases {
		r := e.do("PUT", "/api/data/containers", e.adminToken, tc.body)
		if r.Code != tc.status || (tc.field != "" && r.field(tc.field) == "") {
			t.Errorf("%v: %d %s", tc.body, r.Code, r.Body)
		}
	}
}

// A container with a group is hidden from users outside it, in every
// container answer.
func TestContainerVisibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "private", "public"))["id"].(string)
	g := e.createGroup("Secret")
	priv, pub := e.containerOf(id, "private"), e.containerOf(id, "public")
	for _, c := range []string{priv, pub} {
		body := map[string]any{"id": c, "location_id": id, "enabled": true}
		if c == priv {
			body["groups"] = []string{g}
		}
		e.do("PUT", "/api/data/containers", e.adminToken, body).status(200)
	}
	uid, tok := e.userWithScopes("viewer@example.com", "containers:read", "containers:write")

	page := e.containerPage(tok, id, "", "")
	if len(page.Containers) != 1 || page.Containers[0].Name != "public" {
		t.Fatalf("visible page: %+v", page.Containers)
	}
	var enabled []map[string]any
	e.do("GET", "/api/data/containers/enabled", tok, nil).status(200).decode(&enabled)
	if len(enabled) != 1 || enabled[0]["id"] != pub {
		t.Fatalf("visible enabled: %v", enabled)
	}
	e.do("GET", "/api/data/v3/containers/"+priv+"/name", tok, nil).status(403)
	e.do("PUT", "/api/data/containers", tok, map[string]any{"id": priv, "location_id": id, "enabled": false}).status(403)

	e.joinGroup(uid, g)
	if page := e.containerPage(tok, id, "", ""); len(page.Containers) != 2 {
		t.Fatalf("member sees %d containers", len(page.Containers))
	}
	e.do("GET", "/api/data/v3/containers/"+priv+"/name", tok, nil).status(200)
}
