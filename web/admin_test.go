package web

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

var adminPages = []string{"/admin", "/admin/users", "/admin/groups", "/admin/roles", "/admin/keys", "/admin/extractors"}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)

// csrfOf is the CSRF token a page carries for its scripts.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfMeta.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf-token meta in the page: %.1500s", page)
	}
	return html.UnescapeString(m[1])
}

// cookieCall is what admin.js sends: a JSON request with the session
// cookie and the page's CSRF token, from this origin.
func (e *env) cookieCall(method, path string, cookie *http.Cookie, csrf string, body any) *httptest.ResponseRecorder {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", csrf)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(cookie)
	return e.serve(req)
}

// The administrator sees every screen with its actions; the header links
// to them.
func TestAdminPagesForTheAdministrator(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	admin := e.signIn(adminEmail, adminPassword)
	home := e.page("/", admin, http.StatusOK)
	if !strings.Contains(home, `<a href="/admin">Admin</a>`) {
		t.Errorf("the header has no Admin link for the administrator")
	}
	want := map[string][]string{
		"/admin":            {"Administration", `href="/admin/users"`, `href="/admin/extractors"`, "Files", "Last harvest", `id="platform"`},
		"/admin/users":      {adminEmail, `id="user-new"`, `name="password"`, `data-edit="user"`, `<option value="default-user" selected>default-user</option>`},
		"/admin/groups":     {`id="group-new"`, "There are no groups yet."},
		"/admin/roles":      {"Every scope, always", `id="role-new"`, `data-field="scopes"`},
		"/admin/keys":       {`id="key-new"`, "There are no keys yet.", "Every user’s keys"},
		"/admin/extractors": {"mediainfo", "data-extractor-toggle", "Runs here"},
	}
	for _, target := range adminPages {
		body := e.page(target, admin, http.StatusOK)
		for _, w := range want[target] {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q: %.3000s", target, w, body)
			}
		}
		if !strings.Contains(body, `/assets/js/admin.js`) || !strings.Contains(body, `/assets/css/admin.css`) {
			t.Errorf("%s lacks the section's script or style", target)
		}
	}
	// The administrator may not delete their own account: no button for it.
	users := e.page("/admin/users", admin, http.StatusOK)
	if strings.Contains(users, `data-label="user `+adminEmail+`"`) {
		t.Errorf("a delete button for the signed-in administrator")
	}
}

// A user without an administration scope has no Admin link and gets the
// 403 page on every screen; the api refuses the actions the pages send.
func TestAdminPagesRefuseOthers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("reader@example.com", "search:read", "items:read")
	reader := e.signIn("reader@example.com", userPassword)
	home := e.page("/", reader, http.StatusOK)
	if strings.Contains(home, `href="/admin"`) {
		t.Errorf("the header links to /admin for a user without admin scopes")
	}
	for _, target := range adminPages {
		body := e.page(target, reader, http.StatusForbidden)
		if !strings.Contains(body, "Not allowed") || strings.Contains(body, adminEmail) {
			t.Errorf("%s: the 403 page: %.1500s", target, body)
		}
	}
	// Signed out: the sign-in page, then back.
	if r := e.browse("GET", "/admin", nil, nil); r.Code != http.StatusSeeOther || !strings.Contains(r.Header().Get("Location"), "/signin?next=%2Fadmin") {
		t.Errorf("/admin signed out: %d %v", r.Code, r.Header())
	}
	csrf := csrfOf(t, home)
	if r := e.cookieCall("POST", "/api/data/users", reader, csrf, map[string]any{"email": "x@example.com", "password": userPassword}); r.Code != http.StatusForbidden {
		t.Errorf("create a user with a reader's cookie: %d %s", r.Code, r.Body)
	}
	if r := e.cookieCall("PUT", "/api/data/extractors/mediainfo", reader, csrf, map[string]any{"enabled": false}); r.Code != http.StatusForbidden {
		t.Errorf("switch an extractor with a reader's cookie: %d %s", r.Code, r.Body)
	}
}

// Each screen shows to its scope only, and its actions only to the
// holders of the matching write scope.
func TestAdminScreensFollowScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	listerID := e.user("lister@example.com", "users:read")
	lister := e.signIn("lister@example.com", userPassword)
	overview := e.page("/admin", lister, http.StatusOK)
	if !strings.Contains(overview, `href="/admin/users"`) || strings.Contains(overview, `href="/admin/groups"`) ||
		strings.Contains(overview, "Last harvest") || strings.Contains(overview, `id="platform"`) {
		t.Errorf("the overview of a users:read holder: %.3000s", overview)
	}
	users := e.page("/admin/users", lister, http.StatusOK)
	for _, absent := range []string{`id="user-new"`, "data-delete", "data-edit", "<option", `<th scope="col">Groups</th>`} {
		if strings.Contains(users, absent) {
			t.Errorf("the users page of a reader has %q", absent)
		}
	}
	// Without roles:read, a role shows as its id (as the users api answers it).
	if !strings.Contains(users, "<td>root <span") || !strings.Contains(users, adminEmail) || !strings.Contains(users, listerID) {
		t.Errorf("the users page of a reader: %.3000s", users)
	}
	e.page("/admin/groups", lister, http.StatusForbidden)
	e.page("/admin/roles", lister, http.StatusForbidden)

	e.user("summariser@example.com", "summary:read")
	sum := e.signIn("summariser@example.com", userPassword)
	if body := e.page("/admin", sum, http.StatusOK); !strings.Contains(body, "Last harvest") || strings.Contains(body, `href="/admin/users"`) {
		t.Errorf("the overview of a summary:read holder: %.3000s", body)
	}

	e.user("xreader@example.com", "extractors:read")
	xr := e.signIn("xreader@example.com", userPassword)
	if body := e.page("/admin/extractors", xr, http.StatusOK); strings.Contains(body, "data-extractor-toggle") || !strings.Contains(body, "mediainfo") {
		t.Errorf("the extractors page of a reader: %.2000s", body)
	}
	// A switch through the api shows on the page.
	e.apiCall("PUT", "/api/data/extractors/mediainfo", e.adminToken, map[string]any{"enabled": false}, 200)
	body := e.page("/admin/extractors", xr, http.StatusOK)
	if !strings.Contains(body, `data-name="mediainfo" data-enabled="false"`) {
		t.Errorf("the disabled extractor: %.200s", body[strings.Index(body, `data-name="mediainfo"`):])
	}
}

// A user sees their own API keys only, never a secret; the administrator
// sees every key with its owner.
func TestAdminKeysAreOwn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.user("keeper@example.com", "apikeys:read", "apikeys:write")
	tok := e.token("keeper@example.com", userPassword)
	mine := e.apiCall("POST", "/api/data/api-keys", tok, map[string]any{"name": "keeper's script"}, 201)
	theirs := e.apiCall("POST", "/api/data/api-keys", e.adminToken, map[string]any{"name": "admin's script"}, 201)
	keeper := e.signIn("keeper@example.com", userPassword)
	body := e.page("/admin/keys", keeper, http.StatusOK)
	if !strings.Contains(body, html.EscapeString("keeper's script")) || strings.Contains(body, "admin&#39;s script") ||
		strings.Contains(body, theirs["id"].(string)) || strings.Contains(body, "Owner") {
		t.Errorf("the keys page of a user: %.3000s", body)
	}
	for _, secret := range []string{mine["jwt"].(string), theirs["jwt"].(string)} {
		if strings.Contains(body, secret) {
			t.Errorf("a key's secret is in the page")
		}
	}
	admin := e.signIn(adminEmail, adminPassword)
	all := e.page("/admin/keys", admin, http.StatusOK)
	if !strings.Contains(all, "keeper@example.com") || !strings.Contains(all, "admin&#39;s script") || strings.Contains(all, mine["jwt"].(string)) {
		t.Errorf("the keys page of the administrator: %.3000s", all)
	}
	// The page's action: deactivate with the cookie and CSRF token.
	r := e.cookieCall("PATCH", "/api/data/api-keys/"+mine["id"].(string), keeper, csrfOf(t, body), map[string]any{"active": false})
	if r.Code != http.StatusOK {
		t.Fatalf("deactivate: %d %s", r.Code, r.Body)
	}
	if body := e.page("/admin/keys", keeper, http.StatusOK); !strings.Contains(body, "No: deactivated") {
		t.Errorf("the deactivated key: %.3000s", body)
	}
}

// Names, descriptions and emails others typed are text on every screen.
func TestAdminHostileTextIsText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	evil := `<img src=x onerror=alert(1)>`
	g := e.apiCall("POST", "/api/data/v3/groups", e.adminToken, map[string]any{"name": evil + " group", "description": evil + " described"}, 201)
	role := e.apiCall("POST", "/api/data/roles", e.adminToken, map[string]any{"name": evil + " role", "description": evil, "scopes": []string{"search:read"}}, 201)
	u := e.apiCall("POST", "/api/data/users", e.adminToken, map[string]any{"email": "evil@example.com", "password": userPassword,
		"role_id": role["id"], "first_name": evil, "last_name": `"><script>alert(2)</script>`}, 201)
	e.apiCall("PUT", "/api/data/v3/users/"+u["id"].(string)+"/groups/"+g["id"].(string), e.adminToken, nil, 200)
	e.apiCall("POST", "/api/data/api-keys", e.adminToken, map[string]any{"name": evil + " key"}, 201)
	admin := e.signIn(adminEmail, adminPassword)
	for _, target := range adminPages {
		body := e.page(target, admin, http.StatusOK)
		for _, raw := range []string{"<img src=x", "<script>alert"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s: raw markup %q", target, raw)
			}
		}
		if target != "/admin" && target != "/admin/extractors" && !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s: the hostile text is not shown as text: %.3000s", target, body)
		}
	}
}
