package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/metrics"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testredis"
)

const (
	adminEmail    = "admin@example.com"
	adminPassword = "admin-password-1"
)

// env is one isolated platform: its own database, Redis namespace and api.
type env struct {
	t          *testing.T
	srv        *Server
	queue      *asynq.Client
	db         *gorm.DB
	cfg        config.Config
	adminToken string
}

func testConfig(t *testing.T) config.Config {
	cfg, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.RedisURL = testredis.URL()
	cfg.RedisNamespace = testredis.Namespace(t)
	cfg.DataDir = t.TempDir()
	return cfg
}

func newEnv(t *testing.T, tweak ...func(*config.Config)) *env {
	t.Helper()
	cfg := testConfig(t)
	for _, f := range tweak {
		f(&cfg)
	}
	db := testdb.New(t)
	rdb := redis.NewClient(mustRedisOpt(t, cfg.RedisURL))
	t.Cleanup(func() { rdb.Close() })
	if _, err := BootstrapAdmin(context.Background(), db, adminEmail, adminPassword); err != nil {
		t.Fatal(err)
	}
	qopt, err := queue.RedisOpt(cfg.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	qc := asynq.NewClient(qopt)
	t.Cleanup(func() { qc.Close() })
	sqlDB, _ := db.DB()
	rec := metrics.NewRecorder(metrics.RecorderConfig{Redis: rdb, Namespace: cfg.RedisNamespace, Role: "api", DB: sqlDB})
	// The artifact store and upload bucket of the configuration, as main
	// opens them: DATA_DIR's unless a test sets DATA_BUCKET.
	files, err := blobstore.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), Deps{Config: cfg, DB: db, Redis: rdb, Queue: qc, Metrics: rec, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, srv: srv, db: db, cfg: cfg, queue: qc}
	e.adminToken = e.login(adminEmail, adminPassword)
	return e
}

// ownRedis gives an env a Redis database of its own, for tests that list
// every queue Redis holds (the queue dashboard): another test's queue
// could vanish between the listing and its stats.
func ownRedis(t *testing.T) func(*config.Config) {
	return func(c *config.Config) { c.RedisURL = testredis.OwnDatabase(t) }
}

func mustRedisOpt(t *testing.T, url string) *redis.Options {
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

func (e *env) login(email, password string) string {
	e.t.Helper()
	r := e.do("POST", "/api/login", "", map[string]string{"email": email, "password": password})
	r.status(200)
	return r.json()["token"].(string)
}

// response is a recorded response, already validated against openapi.yaml.
type response struct {
	t    *testing.T
	Code int
	Body []byte
	Head http.Header
}

func (r *response) status(want int) *response {
	r.t.Helper()
	if r.Code != want {
		r.t.Fatalf("status %d, want %d; body %s", r.Code, want, r.Body)
	}
	return r
}

func (r *response) json() map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		r.t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

func (r *response) decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("decode %T: %v: %s", v, err, r.Body)
	}
}

// errCode returns error.code of an error body, failing on any other shape.
func (r *response) errCode() string {
	r.t.Helper()
	var body struct {
		Error struct {
			Code    string            `json:"code"`
			Message string            `json:"message"`
			Fields  map[string]string `json:"fields"`
		} `json:"error"`
	}
	r.decode(&body)
	if body.Error.Code == "" || body.Error.Message == "" {
		r.t.Fatalf("not an error body: %s", r.Body)
	}
	return body.Error.Code
}

func (r *response) field(name string) string {
	r.t.Helper()
	var body struct {
		Error struct {
			Fields map[string]string `json:"fields"`
		} `json:"error"`
	}
	r.decode(&body)
	return body.Error.Fields[name]
}

// do sends a request through the real router. body may be nil, a string
// (sent raw) or any value (sent as JSON).
func (e *env) do(method, path, token string, body any) *response {
	e.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			e.t.Fatal(err)
		}
	}
	return e.doRaw(method, path, token, raw, "application/json")
}

func (e *env) doRaw(method, path, token string, raw []byte, contentType string) *response {
	e.t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	if raw != nil && contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	res := &response{t: e.t, Code: rec.Code, Body: rec.Body.Bytes(), Head: rec.Header()}
	validateResponse(e.t, req, raw, res)
	return res
}

func init() {
	// Non-JSON bodies the api serves (docs page, files) are validated as text.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

var (
	routerOnce sync.Once
	oaRouter   routers.Router
	oaErr      error
)

// validateResponse checks every response a test receives against
// openapi.yaml. Every non-2xx must carry the JSON error body.
func validateResponse(t *testing.T, req *http.Request, reqBody []byte, res *response) {
	t.Helper()
	if res.Code >= 300 || res.Code < 200 {
		var body struct {
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(res.Body, &body); err != nil || body.Error == nil || body.Error.Code == "" {
			t.Fatalf("%s %s: status %d without the JSON error body: %s", req.Method, req.URL.Path, res.Code, res.Body)
		}
	}
	if !strings.HasPrefix(res.Head.Get("Content-Type"), "application/json") && res.Code != 200 {
		t.Fatalf("%s %s: content type %q", req.Method, req.URL.Path, res.Head.Get("Content-Type"))
	}
	routerOnce.Do(func() {
		doc, _, err := Spec()
		if err != nil {
			oaErr = err
			return
		}
		oaRouter, oaErr = gorillamux.NewRouter(doc)
	})
	if oaErr != nil {
		t.Fatalf("openapi: %v", oaErr)
	}
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := oaRouter.FindRoute(vreq)
	if err != nil {
		if res.Code == http.StatusNotFound || res.Code == http.StatusMethodNotAllowed {
			return // an unknown route answers with the error body, checked above
		}
		t.Fatalf("%s %s: not in openapi.yaml: %v", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.Code, Header: res.Head,
		Body: io.NopCloser(bytes.NewReader(res.Body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Fatalf("%s %s: response %d does not match openapi.yaml: %v\nbody: %s", req.Method, req.URL.Path, res.Code, err, res.Body)
	}
}

// userWithScopes creates a role with the scopes, a user holding it, and
// returns the user's id and login token.
func (e *env) userWithScopes(email string, scopes ...string) (string, string) {
	e.t.Helper()
	if scopes == nil {
		scopes = []string{}
	}
	role := e.do("POST", "/api/data/roles", e.adminToken, map[string]any{"name": "role-" + email, "scopes": scopes}).status(201).json()
	u := e.do("POST", "/api/data/users", e.adminToken, map[string]any{
		"email": email, "password": "password-123", "role_id": role["id"], "first_name": "F", "last_name": "L",
	}).status(201).json()
	return u["id"].(string), e.login(email, "password-123")
}

func (e *env) doWithHeader(method, path string, body any, header, value string) *response {
	e.t.Helper()
	raw, _ := json.Marshal(body)
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(header, value)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	res := &response{t: e.t, Code: rec.Code, Body: rec.Body.Bytes(), Head: rec.Header()}
	validateResponse(e.t, req, raw, res)
	return res
}
