package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// browse sends a request as a browser would (no bearer token; the cookie
// when given). Redirects and HTML pages are outside the JSON error model
// that validateResponse checks, so this goes to the router directly.
func (e *env) browse(method, path string, cookie *http.Cookie, form url.Values) *httptest.ResponseRecorder {
	e.t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*")
	if cookie != nil {
		req.AddCookie(cookie)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// script calls the dashboard's API as a script would, with a bearer token.
// The dashboard's paths hold slashes below /monitoring/{path}, which an
// OpenAPI path parameter cannot match, so validateResponse is skipped.
func (e *env) script(method, path, token string) *httptest.ResponseRecorder {
	e.t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// dashboardLogin logs in on the dashboard's form and returns the cookie.
func (e *env) dashboardLogin(email, password string) *http.Cookie {
	e.t.Helper()
	r := e.browse("POST", monitoringLoginPath, nil, url.Values{"email": {email}, "password": {password}})
	if r.Code != http.StatusSeeOther || r.Header().Get("Location") != "/monitoring/" {
		e.t.Fatalf("login %s: %d %v %s", email, r.Code, r.Header(), r.Body)
	}
	cookies := r.Result().Cookies()
	if len(cookies) != 1 {
		e.t.Fatalf("cookies %v", cookies)
	}
	return cookies[0]
}

// A browser without a session is sent to the login page; the form sets a
// short-lived HttpOnly, SameSite=Strict cookie scoped to /monitoring that
// opens the dashboard and nothing else.
func TestMonitoringLoginAndSessionCookie(t *testing.T) {
	t.Parallel()
	e := newEnv(t, ownRedis(t))
	if r := e.browse("GET", "/monitoring/", nil, nil); r.Code != http.StatusSeeOther || r.Header().Get("Location") != monitoringLoginPath {
		t.Fatalf("no session: %d %v", r.Code, r.Header())
	}
	if r := e.browse("GET", "/monitoring", nil, nil); r.Code != http.StatusSeeOther || r.Header().Get("Location") != "/monitoring/" {
		t.Fatalf("/monitoring: %d %v", r.Code, r.Header())
	}
	if r := e.script("GET", "/monitoring/api/queues", ""); r.Code != 401 || !strings.Contains(r.Body.String(), `"unauthorized"`) {
		t.Fatalf("a script without credential: %d %s", r.Code, r.Body) // JSON 401, no redirect
	}
	page := e.browse("GET", monitoringLoginPath, nil, nil)
	if page.Code != 200 || !strings.Contains(page.Body.String(), `name="password"`) ||
		!strings.Contains(page.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("login page: %d %v %s", page.Code, page.Header(), page.Body)
	}
	bad := e.browse("POST", monitoringLoginPath, nil, url.Values{"email": {adminEmail}, "password": {"wrong-password"}})
	if bad.Code != 200 || !strings.Contains(bad.Body.String(), "invalid email or password") || len(bad.Result().Cookies()) != 0 {
		t.Fatalf("wrong password: %d %s", bad.Code, bad.Body)
	}
	long := e.browse("POST", monitoringLoginPath, nil, url.Values{"email": {adminEmail}, "password": {strings.Repeat("p", 129)}})
	if long.Code != 200 || !strings.Contains(long.Body.String(), "at most 128") {
		t.Fatalf("long password: %d %s", long.Code, long.Body)
	}
	_, _ = e.userWithScopes("reader@example.com", "search:read")
	denied := e.browse("POST", monitoringLoginPath, nil, url.Values{"email": {"reader@example.com"}, "password": {"password-123"}})
	if denied.Code != 200 || !strings.Contains(denied.Body.String(), "may not see the queue dashboard") || len(denied.Result().Cookies()) != 0 {
		t.Fatalf("reader: %d %s", denied.Code, denied.Body)
	}

	cookie := e.dashboardLogin(adminEmail, adminPassword)
	set := e.browse("POST", monitoringLoginPath, nil, url.Values{"email": {adminEmail}, "password": {adminPassword}}).Header().Get("Set-Cookie")
	for _, attr := range []string{"mh_monitoring=", "Path=/monitoring", "Max-Age=1800", "HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(set, attr) {
			t.Errorf("Set-Cookie %q lacks %s", set, attr)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("Secure on a plain-HTTP deployment: %q", set)
	}
	index := e.browse("GET", "/monitoring/", cookie, nil)
	if index.Code != 200 || !strings.Contains(index.Body.String(), `window.FLAG_ROOT_PATH="\/monitoring"`) ||
		!strings.Contains(index.Body.String(), `FLAG_READ_ONLY="false"`) || index.Header().Get("X-Frame-Options") != "DENY" {
		t.Fatalf("dashboard: %d %v %.300s", index.Code, index.Header(), index.Body)
	}
	queues := e.browse("GET", "/monitoring/api/queues", cookie, nil)
	var body struct {
		Queues []struct {
			Queue string `json:"queue"`
		} `json:"queues"`
	}
	if queues.Code != 200 || json.Unmarshal(queues.Body.Bytes(), &body) != nil {
		t.Fatalf("queues: %d %s", queues.Code, queues.Body)
	}

	// The cookie is no bearer token, opens no other route, and a forged or
	// altered one opens nothing.
	e.do("GET", "/api/data/roles", cookie.Value, nil).status(401)
	if r := e.browse("GET", "/api/data/roles", cookie, nil); r.Code != 401 {
		t.Fatalf("cookie on another route: %d", r.Code)
	}
	forged := *cookie
	forged.Value = cookie.Value[:len(cookie.Value)-2] + "xx"
	if r := e.browse("GET", "/monitoring/api/queues", &forged, nil); r.Code != http.StatusSeeOther {
		t.Fatalf("forged cookie: %d", r.Code)
	}
	// A disabled user's session ends at once.
	var adminID string
	e.db.Raw("SELECT id FROM users WHERE email = ?", adminEmail).Scan(&adminID)
	other := e.dashboardLogin(adminEmail, adminPassword)
	e.db.Exec("UPDATE users SET enabled = false WHERE id = ?", adminID)
	if r := e.browse("GET", "/monitoring/api/queues", other, nil); r.Code != http.StatusSeeOther {
		t.Fatalf("disabled user: %d", r.Code)
	}
}

// A role with system:read alone sees a read-only dashboard: asynqmon hides
// its buttons and the actions need system:write.
func TestMonitoringReadOnlyWithoutSystemWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, ownRedis(t))
	_, token := e.userWithScopes("watcher@example.com", "system:read")
	cookie := e.dashboardLogin("watcher@example.com", "password-123")
	index := e.browse("GET", "/monitoring/", cookie, nil)
	if index.Code != 200 || !strings.Contains(index.Body.String(), `FLAG_READ_ONLY="true"`) {
		t.Fatalf("dashboard: %d %.300s", index.Code, index.Body)
	}
	if r := e.script("GET", "/monitoring/api/queues", token); r.Code != 200 {
		t.Fatalf("queues with a bearer token: %d %s", r.Code, r.Body)
	}
	if r := e.script("POST", "/monitoring/api/queues/stage01:pause", token); r.Code != 403 || !strings.Contains(r.Body.String(), "system:write") {
		t.Fatalf("pause: %d %s", r.Code, r.Body)
	}
	if r := e.browse("DELETE", "/monitoring/api/queues/stage01", cookie, nil); r.Code != 403 {
		t.Fatalf("delete with the cookie: %d %s", r.Code, r.Body)
	}
}
