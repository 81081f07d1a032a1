package api

import (
	"net/http"
	"strings"
	"testing"
)

func samplePath(ginPath string) string { return ginParam.ReplaceAllString(ginPath, "x") }

// Every registered route has a scope and an OpenAPI operation naming the
// same scope; every OpenAPI operation is a registered route.
func TestEveryRouteHasScopeAndOpenAPIEntry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc, _, err := Spec()
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, rt := range e.srv.Routes() {
		key := rt.Method + " " + openapiPath(rt.Path)
		registered[key] = true
		if rt.Scope == "" {
			t.Errorf("%s has no scope", key)
		}
		item := doc.Paths.Value(openapiPath(rt.Path))
		if item == nil || item.GetOperation(rt.Method) == nil {
			t.Errorf("%s is missing from openapi.yaml", key)
			continue
		}
		op := item.GetOperation(rt.Method)
		if got, _ := op.Extensions["x-scope"].(string); got != rt.Scope {
			t.Errorf("%s: openapi x-scope %q, route scope %q", key, got, rt.Scope)
		}
		if _, ok := op.Responses.Map()["default"]; !ok {
			t.Errorf("%s: openapi operation lacks a default (error) response", key)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !registered[method+" "+path] {
				t.Errorf("openapi.yaml documents %s %s which is not a route", method, path)
			}
		}
	}
}

// A caller without credentials gets 401, and a caller whose role lacks the
// route's scope gets 403, on every protected route.
func TestEveryProtectedRouteChecksCredentialAndScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, noScopes := e.userWithScopes("nobody@example.com")
	for _, rt := range e.srv.Routes() {
		if rt.Scope == ScopePublic {
			continue
		}
		path := samplePath(rt.Path)
		body := "{}"
		if rt.Method == http.MethodGet || rt.Method == http.MethodDelete {
			body = ""
		}
		if r := e.doRaw(rt.Method, path, "", []byte(body), "application/json"); r.Code != http.StatusUnauthorized {
			t.Errorf("%s %s without credential: %d, want 401", rt.Method, path, r.Code)
		}
		r := e.doRaw(rt.Method, path, noScopes, []byte(body), "application/json")
		if r.Code != http.StatusForbidden || r.errCode() != "missing_scope" {
			t.Errorf("%s %s without scope %s: %d %s, want 403", rt.Method, path, rt.Scope, r.Code, r.Body)
		}
		if !strings.Contains(string(r.Body), rt.Scope) {
			t.Errorf("%s %s: 403 body does not name the scope %s", rt.Method, path, rt.Scope)
		}
	}
}

func TestUnknownRouteAndMethodAnswerJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if r := e.do("GET", "/api/data/nope", e.adminToken, nil); r.Code != 404 || r.errCode() != "route_not_found" {
		t.Fatalf("unknown route: %d %s", r.Code, r.Body)
	}
	if r := e.do("PATCH", "/api/data/roles", e.adminToken, nil); r.Code != 405 || r.errCode() != "method_not_allowed" {
		t.Fatalf("wrong method: %d %s", r.Code, r.Body)
	}
}

func TestBadCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tok := range []string{"garbage", "a.b.c", e.adminToken + "x", strings.Repeat("A", 5000)} {
		if r := e.do("GET", "/api/data/roles", tok, nil); r.Code != 401 {
			t.Errorf("token %.20q: %d, want 401", tok, r.Code)
		}
	}
	r := e.doRaw("GET", "/api/data/roles", "", nil, "")
	r.status(401)
}

func TestHealthAndDocs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.do("GET", "/healthz", "", nil).status(200)
	r := e.do("GET", "/readyz", "", nil).status(200).json()
	if r["checks"].(map[string]any)["postgres"] != "ok" {
		t.Fatalf("readyz %v", r)
	}
	doc := e.do("GET", "/api/docs/openapi.json", "", nil).status(200).json()
	if doc["openapi"] != "3.0.3" {
		t.Fatalf("openapi.json: %v", doc["openapi"])
	}
	page := e.do("GET", "/api/docs", "", nil).status(200)
	if !strings.Contains(string(page.Body), "/api/data/roles/scopes") {
		t.Fatal("docs page does not list routes")
	}
}
