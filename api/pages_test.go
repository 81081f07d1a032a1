package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
)

// pageSession issues a web UI session cookie for userID the way the web
// package does (the api's signer, access.SessionCookie).
func (e *env) pageSession(userID string, ttl time.Duration) *http.Cookie {
	e.t.Helper()
	tok, err := e.srv.SessionTokens().IssueSession(userID, ttl)
	if err != nil {
		e.t.Fatal(err)
	}
	return &http.Cookie{Name: access.SessionCookie, Value: tok}
}

// The web UI's session cookie is a credential for GET (and HEAD) requests of
// any API route, checked against the user on each request, and for a
// state-changing one only with its CSRF token from the same origin
// (TestPageActionNeedsCSRFTokenAndOrigin).
func TestPageSessionCookie(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adminID := e.adminUserID()
	cookie := e.pageSession(adminID, time.Hour)

	if r := e.browse("GET", "/api/data/roles", cookie, nil); r.Code != 200 {
		t.Fatalf("GET with the session cookie: %d %s", r.Code, r.Body)
	}
	if r := e.browse("POST", "/api/data/roles", cookie, nil); r.Code != 401 {
		t.Fatalf("POST with the session cookie: %d %s", r.Code, r.Body)
	}
	if r := e.browse("DELETE", "/api/data/roles/none", cookie, nil); r.Code != 401 {
		t.Fatalf("DELETE with the session cookie: %d %s", r.Code, r.Body)
	}
	// A request with an Authorization header is judged by it alone.
	req := httptest.NewRequest("GET", "/api/data/roles", nil)
	req.Header.Set("Authorization", "Bearer not-a-token")
	req.AddCookie(cookie)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 401 {
		t.Fatalf("bad bearer beside a good cookie: %d", rec.Code)
	}
	// The dashboard's cookie name does not carry a page session, nor a
	// page session the bearer scheme.
	if r := e.browse("GET", "/api/data/roles", &http.Cookie{Name: monitoringCookie, Value: cookie.Value}, nil); r.Code != 401 {
		t.Fatalf("page session under the dashboard's name: %d", r.Code)
	}
	e.do("GET", "/api/data/roles", cookie.Value, nil).status(401)

	forged := *cookie
	forged.Value = cookie.Value[:len(cookie.Value)-2] + "xx"
	if r := e.browse("GET", "/api/data/roles", &forged, nil); r.Code != 401 {
		t.Fatalf("forged cookie: %d", r.Code)
	}
	if r := e.browse("GET", "/api/data/roles", e.pageSession(adminID, -time.Minute), nil); r.Code != 401 {
		t.Fatalf("expired cookie: %d", r.Code)
	}
	// A login token in the cookie is no session.
	if r := e.browse("GET", "/api/data/roles", &http.Cookie{Name: access.SessionCookie, Value: e.adminToken}, nil); r.Code != 401 {
		t.Fatalf("login token as cookie: %d", r.Code)
	}

	// Scopes and the user's state are read on every request.
	readerID, _ := e.userWithScopes("reader@example.com", "search:read")
	reader := e.pageSession(readerID, time.Hour)
	if r := e.browse("GET", "/api/data/roles", reader, nil); r.Code != 403 {
		t.Fatalf("cookie of a user without the scope: %d %s", r.Code, r.Body)
	}
	e.db.Exec("UPDATE users SET enabled = false WHERE id = ?", adminID)
	if r := e.browse("GET", "/api/data/roles", cookie, nil); r.Code != 401 {
		t.Fatalf("disabled user's cookie: %d", r.Code)
	}
}

// pageAction sends a state-changing request as a page's script would: the
// session cookie, and the given CSRF token and origin headers.
func (e *env) pageAction(method, path string, cookie *http.Cookie, body string, header map[string]string) *httptest.ResponseRecorder {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	req.AddCookie(cookie)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// A page's script changes things through the api with the session cookie
// and the session's CSRF token; a forged cross-site request (no token, a
// token of another session, another origin, a cross-site fetch) changes
// nothing and answers 401. An accepted one writes the api's audit event.
func TestPageActionNeedsCSRFTokenAndOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	adminID := e.adminUserID()
	cookie := e.pageSession(adminID, time.Hour)
	token := e.srv.SessionTokens().CSRF(cookie.Value)
	other := e.srv.SessionTokens().CSRF(e.pageSession(adminID, 2*time.Hour).Value)
	body := `{"name":"From a page"}`
	for _, forged := range []map[string]string{
		{},
		{"Origin": "http://example.com"},
		{access.CSRFHeader: ""},
		{access.CSRFHeader: other, "Origin": "http://example.com"},
		{access.CSRFHeader: token + "x", "Origin": "http://example.com"},
		{access.CSRFHeader: token, "Origin": "https://evil.example"},
		{access.CSRFHeader: token, "Origin": "null"},
		{access.CSRFHeader: token, "Sec-Fetch-Site": "cross-site"},
		{access.CSRFHeader: token, "Sec-Fetch-Site": "same-site", "Origin": "http://example.com"},
	} {
		if r := e.pageAction("POST", "/api/data/v3/groups", cookie, body, forged); r.Code != 401 {
			t.Errorf("forged page action %v: %d %s", forged, r.Code, r.Body)
		}
	}
	if n := e.count(`SELECT count(*) FROM groups WHERE name = 'From a page'`); n != 0 {
		t.Fatalf("a forged request made %d groups", n)
	}
	r := e.pageAction("POST", "/api/data/v3/groups", cookie, body,
		map[string]string{access.CSRFHeader: token, "Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"})
	if r.Code != 201 {
		t.Fatalf("the page's own action: %d %s", r.Code, r.Body)
	}
	if n := e.count(`SELECT count(*) FROM audit_events WHERE user_id = ? AND target_kind = 'group' AND action_key = 'create'`, adminID); n != 1 {
		t.Errorf("the page's action wrote %d audit events, want the api's 1", n)
	}
	// The token is the session's: a token with no cookie is nothing.
	req := httptest.NewRequest("POST", "/api/data/v3/groups", strings.NewReader(body))
	req.Header.Set(access.CSRFHeader, token)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 401 {
		t.Errorf("token without its cookie: %d", rec.Code)
	}
}

// The queue dashboard opens with the web UI's session, its actions from this
// origin included (its script cannot send the CSRF token; SameSite=Strict
// and the origin check protect it, as its own cookie); an action from
// another site is refused.
func TestPageSessionOpensTheDashboard(t *testing.T) {
	t.Parallel()
	e := newEnv(t, ownRedis(t))
	cookie := e.pageSession(e.adminUserID(), time.Hour)
	if r := e.browse("GET", "/monitoring/api/queues", cookie, nil); r.Code != 200 {
		t.Fatalf("dashboard with the web session: %d %s", r.Code, r.Body)
	}
	pause := "/monitoring/api/queues/" + e.srv.queues.Stage(1) + ":pause"
	for _, forged := range []map[string]string{
		{"Origin": "https://evil.example"},
		{"Sec-Fetch-Site": "cross-site"},
	} {
		if r := e.pageAction("POST", pause, cookie, "", forged); r.Code != 401 {
			t.Errorf("a dashboard action from another site %v: %d %s", forged, r.Code, r.Body)
		}
	}
	// Past the credential and scope checks, asynqmon answers (the queue
	// may not exist yet: its 404 is asynqmon's, not ours).
	if r := e.pageAction("POST", pause, cookie, "", map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}); r.Code == 401 || r.Code == 403 {
		t.Fatalf("a dashboard action with the web session: %d %s", r.Code, r.Body)
	}
	// A reader's session opens the read-only dashboard, whose actions
	// need system:write.
	readerID, _ := e.userWithScopes("watcher@example.com", "system:read")
	reader := e.pageSession(readerID, time.Hour)
	if r := e.pageAction("POST", pause, reader, "", map[string]string{"Origin": "http://example.com"}); r.Code != 403 {
		t.Fatalf("a reader's dashboard action: %d %s", r.Code, r.Body)
	}
}

// fakePages owns one path; the api hands it requests no route matched.
type fakePages struct{ seen string }

func (f *fakePages) Owns(p string) bool { return p == "/page" }
func (f *fakePages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.seen = clientIPOf(r)
	w.WriteHeader(http.StatusTeapot)
}

func TestMountPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := &fakePages{}
	e.srv.MountPages(p)
	r := e.browse("GET", "/page", nil, nil)
	if r.Code != http.StatusTeapot || r.Header().Get("X-Request-ID") == "" || p.seen == "" {
		t.Fatalf("owned page: %d %v client %q", r.Code, r.Header(), p.seen)
	}
	if r := e.browse("GET", "/other", nil, nil); r.Code != 404 || !strings.Contains(r.Body.String(), `"route_not_found"`) {
		t.Fatalf("unowned path: %d %s", r.Code, r.Body)
	}
}

// SignIn is POST /api/login's check: the same answers, rate limit and audit
// event.
func TestSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	req := httptest.NewRequest("POST", "/signin", nil)
	u, err := e.srv.SignIn(req, adminEmail, adminPassword)
	if err != nil || u.Email != adminEmail {
		t.Fatalf("good password: %v %v", u, err)
	}
	var n int64
	e.db.Raw("SELECT count(*) FROM audit_events WHERE user_id = ? AND target_kind = 'authenticate' AND action_key = 'login'", u.ID).Scan(&n)
	if n != 2 { // newEnv's login and this one
		t.Fatalf("login audit events: %d", n)
	}
	for i := 0; ; i++ {
		_, err := e.srv.SignIn(req, adminEmail, "wrong-password")
		ae, ok := apperr.As(err)
		if !ok {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if ae.RetryAfter > 0 {
			break
		}
		if ae.Status != http.StatusUnauthorized || i > e.cfg.LoginMaxFailures {
			t.Fatalf("attempt %d: %+v", i, ae)
		}
	}
	// The account is blocked for POST /api/login as well.
	if r := e.do("POST", "/api/login", "", map[string]string{"email": adminEmail, "password": adminPassword}); r.Code != 429 {
		t.Fatalf("login after the web's failures: %d", r.Code)
	}
	if _, err := e.srv.SignIn(req, "nobody@example.com", "x"); !errors.As(err, new(*apperr.Error)) {
		t.Fatalf("unknown email: %v", err)
	}
}
