package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// Every extractor profile route has its h2 alias with the same scope, and
// the alias answers exactly like the original.
func TestExtractorProfilesAlias(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	routes := map[string]string{}
	for _, rt := range e.srv.Routes() {
		routes[rt.Method+" "+rt.Path] = rt.Scope
	}
	n := 0
	for key, scope := range routes {
		method, path, _ := strings.Cut(key, " ")
		if path != profilesPath && !strings.HasPrefix(path, profilesPath+"/") {
			continue
		}
		n++
		alias := method + " " + profilesAliasPath + strings.TrimPrefix(path, profilesPath)
		if got, ok := routes[alias]; !ok || got != scope {
			t.Errorf("%s: alias %s has scope %q (registered %v), want %q", key, alias, got, ok, scope)
		}
	}
	if n != 5 {
		t.Fatalf("%d extractor profile routes, want 5", n)
	}

	// same sends one request to both paths and requires identical answers
	// (but for updated_at, which a second update moves on).
	same := func(method, sub string, body any) *response {
		t.Helper()
		a := e.do(method, profilesPath+sub, e.adminToken, body)
		b := e.do(method, profilesAliasPath+sub, e.adminToken, body)
		if a.Code != b.Code || !bytes.Equal(withoutUpdatedAt(t, a.Body), withoutUpdatedAt(t, b.Body)) {
			t.Fatalf("%s %s: original %d %s\nalias %d %s", method, sub, a.Code, a.Body, b.Code, b.Body)
		}
		return a
	}
	created := e.do("POST", profilesAliasPath, e.adminToken, map[string]any{"name": "fast", "extractors": []string{}}).status(201).json()
	id := created["id"].(string)
	same("GET", "", nil).status(200)
	same("GET", "/"+id, nil).status(200)
	same("GET", "/nope", nil).status(404)
	same("POST", "", map[string]any{"name": "fast"}).status(409)
	same("POST", "", map[string]any{"name": "x", "extractors": []string{"no-such-extractor"}}).status(400)
	same("PUT", "/"+id, map[string]any{"name": "faster", "extractors": []string{}}).status(200)
	same("PUT", "/default", map[string]any{"name": "renamed"}).status(409)
	same("DELETE", "/default", nil).status(409)
	got := e.do("GET", profilesPath+"/"+id, e.adminToken, nil).status(200).json()
	if got["name"] != "faster" {
		t.Fatalf("update through the alias not seen by the original: %v", got)
	}
	e.do("DELETE", profilesAliasPath+"/"+id, e.adminToken, nil).status(200)
	e.do("GET", profilesPath+"/"+id, e.adminToken, nil).status(404)
	var audits int64
	e.db.Model(&models.AuditEvent{}).Where("target_kind = 'extractorprofile' AND target_id = ?", id).Count(&audits)
	if audits != 4 {
		t.Fatalf("audit events: %d, want create, two updates (one per path), delete", audits)
	}

	// Scopes are those of the original.
	_, reader := e.userWithScopes("alias-reader@example.com", "extractors:read")
	e.do("GET", profilesAliasPath, reader, nil).status(200)
	if r := e.do("POST", profilesAliasPath, reader, map[string]any{"name": "y"}); r.Code != 403 || r.errCode() != "missing_scope" {
		t.Fatalf("alias without extractors:write: %d %s", r.Code, r.Body)
	}
}

// withoutUpdatedAt drops a top-level updated_at from a JSON object, keeping
// everything else byte for byte.
func withoutUpdatedAt(t *testing.T, body []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %s", body)
	}
	if _, ok := m["updated_at"]; !ok {
		return body
	}
	delete(m, "updated_at")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
