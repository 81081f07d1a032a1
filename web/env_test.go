package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/api"
	_ "github.com/metaharvest/metaharvest/extractors/families"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testredis"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	_ "github.com/metaharvest/metaharvest/search/meili"
	_ "github.com/metaharvest/metaharvest/search/postgres"
)

const (
	adminEmail    = "admin@example.com"
	adminPassword = "admin-password-1"
	userPassword  = "password-123"
)

// env is one platform: a migrated database of its own, the api with the
// Postgres search engine, and the UI mounted on it the way main does;
// requests go through the api's router.
type env struct {
	t          *testing.T
	db         *gorm.DB
	cfg        config.Config
	srv        *api.Server
	ui         *UI
	eng        search.Engine
	adminToken string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	cfg, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.RedisURL = testredis.URL()
	cfg.RedisNamespace = testredis.Namespace(t)
	cfg.DataDir = t.TempDir()
	db := testdb.New(t)
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	if _, err := api.BootstrapAdmin(context.Background(), db, adminEmail, adminPassword); err != nil {
		t.Fatal(err)
	}
	eng, err := search.Open(search.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(context.Background(), api.Deps{Config: cfg, DB: db, Redis: rdb, Search: eng})
	if err != nil {
		t.Fatal(err)
	}
	ui, err := New(Deps{DB: db, Search: eng, Sessions: srv.SessionTokens(), SignIn: srv.SignIn, SessionTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	srv.MountPages(ui)
	e := &env{t: t, db: db, cfg: cfg, srv: srv, ui: ui, eng: eng}
	e.adminToken = e.token(adminEmail, adminPassword)
	return e
}

// serve sends a request through the api's router.
func (e *env) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// apiCall is a JSON request to the api with a bearer token.
func (e *env) apiCall(method, path, token string, body any, want int) map[string]any {
	e.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := e.serve(req)
	if rec.Code != want {
		e.t.Fatalf("%s %s: %d, want %d: %s", method, path, rec.Code, want, rec.Body)
	}
	var out map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	return out
}

func (e *env) token(email, password string) string {
	e.t.Helper()
	return e.apiCall("POST", "/api/login", "", map[string]string{"email": email, "password": password}, 200)["token"].(string)
}

// user creates a role with the scopes and a user holding it; it returns
// the user's id.
func (e *env) user(email string, scopes ...string) string {
	e.t.Helper()
	if scopes == nil {
		scopes = []string{}
	}
	role := e.apiCall("POST", "/api/data/roles", e.adminToken, map[string]any{"name": "role-" + email, "scopes": scopes}, 201)
	u := e.apiCall("POST", "/api/data/users", e.adminToken, map[string]any{
		"email": email, "password": userPassword, "role_id": role["id"], "first_name": "F", "last_name": "L"}, 201)
	return u["id"].(string)
}

// browse is a browser's request: no bearer token, the cookie when given.
func (e *env) browse(method, target string, cookie *http.Cookie, form url.Values) *httptest.ResponseRecorder {
	e.t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, target, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	req.Header.Set("Accept", "text/html")
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return e.serve(req)
}

// signIn posts the sign-in form and returns the session cookie.
func (e *env) signIn(email, password string) *http.Cookie {
	e.t.Helper()
	rec := e.browse("POST", "/signin", nil, url.Values{"email": {email}, "password": {password}, "next": {"/"}})
	if rec.Code != http.StatusSeeOther {
		e.t.Fatalf("sign in %s: %d %s", email, rec.Code, rec.Body)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == "mh_session" {
			return c
		}
	}
	e.t.Fatalf("sign in %s: no cookie in %v", email, rec.Header())
	return nil
}

// page GETs a page with the cookie and wants status.
func (e *env) page(target string, cookie *http.Cookie, want int) string {
	e.t.Helper()
	rec := e.browse("GET", target, cookie, nil)
	if rec.Code != want {
		e.t.Fatalf("GET %s: %d, want %d: %.2000s", target, rec.Code, want, rec.Body)
	}
	checkPageHeaders(e.t, target, rec)
	return rec.Body.String()
}

// checkPageHeaders: every page has the security headers, no inline script
// and no style attribute.
func checkPageHeaders(t *testing.T, target string, rec *httptest.ResponseRecorder) {
	t.Helper()
	h := rec.Header()
	if h.Get("Content-Security-Policy") != csp || h.Get("X-Content-Type-Options") != "nosniff" ||
		h.Get("Referrer-Policy") != "same-origin" || h.Get("Cache-Control") != "no-store" {
		t.Errorf("%s: headers %v", target, h)
	}
	body := rec.Body.String()
	for _, bad := range []string{" style=", "<style", "<script>", "javascript:"} {
		if strings.Contains(body, bad) {
			t.Errorf("%s: the page has %q", target, bad)
		}
	}
	if strings.Count(body, "<script") != strings.Count(body, `<script type="module" src="/assets/js/`) {
		t.Errorf("%s: a script that is not one of ours", target)
	}
}

// place makes a location (with groups) and its container "media".
func (e *env) place(locID, name string, groups ...string) string {
	e.t.Helper()
	e.must(e.db.Create(&models.Location{ID: locID, Kind: "filesystem", Name: name, Config: models.MustJSON(map[string]string{"path": "/x"})}).Error)
	for _, g := range groups {
		e.must(e.db.Create(&models.LocationGroup{LocationID: locID, GroupID: g}).Error)
	}
	ctr := models.ContainerID(locID, "media")
	e.must(e.db.Create(&models.Container{ID: ctr, LocationID: locID, Name: "media"}).Error)
	return ctr
}

// item inserts an item of the container with metadata.
func (e *env) item(locID, ctr, path, mime string, meta map[string]any) string {
	e.t.Helper()
	now := time.Date(2024, 5, 17, 10, 0, 0, 0, time.UTC)
	it := models.Item{ID: models.ItemID(ctr, path), LocationID: locID, ContainerID: ctr, Path: path,
		Name: path[strings.LastIndex(path, "/")+1:], MimeType: mime, Size: 1234, LastModified: &now, LastHarvested: &now,
		Metadata: models.MustJSON(meta), Results: models.JSON(`{}`)}
	e.must(e.db.Create(&it).Error)
	return it.ID
}

// index feeds the engine what changed, as the workers do.
func (e *env) index(ids ...string) {
	e.t.Helper()
	e.must(search.MarkDirty(e.db, ids...))
	if _, err := search.Drain(context.Background(), e.db, e.eng, 100); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}
