package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/metaharvest/metaharvest/api"
	"github.com/metaharvest/metaharvest/internal/testproc"
)

// client talks to a running api process.
type client struct {
	t     *testing.T
	base  string
	token string
}

func (c *client) call(method, path string, body any, want int) map[string]any {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, c.base+path, r)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		c.t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, want, raw)
	}
	validate(c.t, req, body, res, raw)
	var out map[string]any
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &out); err != nil {
			c.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return out
}

// TestHarvestThroughAPIAndWorkerProcesses drives the platform only over
// HTTP, the way a client does, with the api and two workers as separate
// processes: create a location on a folder of real sample files, harvest
// its container, read the activity reports, upload a file.
func TestHarvestThroughAPIAndWorkerProcesses(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	root := t.TempDir()
	samples, err := filepath.Glob(filepath.Join("..", "..", "..", "extractors", "testdata", "*"))
	if err != nil {
		t.Fatal(err)
	}
	sha := map[string]string{}
	for _, s := range samples {
		if strings.HasSuffix(s, ".md") {
			continue
		}
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		name := "footage/" + filepath.Base(s)
		os.MkdirAll(filepath.Join(root, "footage"), 0o755)
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		sha[filepath.Base(s)] = sha256hex(b)
	}
	if len(sha) < 5 {
		t.Fatalf("only %d sample files", len(sha))
	}
	c := startAPI(t, p, "ADMIN_EMAIL=admin@example.com", "ADMIN_PASSWORD=e2e-password-1")
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	c.token = c.call("POST", "/api/login", map[string]string{"email": "admin@example.com", "password": "e2e-password-1"}, 200)["token"].(string)

	loc := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Archive",
		"config": map[string]any{"path": root}}, 201)
	locID := loc["id"].(string)
	ctrs := c.call("GET", "/api/data/locations/"+locID+"/containers", nil, 200)["containers"].([]any)
	if len(ctrs) != 1 {
		t.Fatalf("containers: %v", ctrs)
	}
	ctrID := ctrs[0].(map[string]any)["id"].(string)
	req := c.call("POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID, "priority": 2}, 202)["request_id"].(string)

	var files []any
	deadline := time.Now().Add(2 * time.Minute)
	for {
		r := c.call("GET", "/api/data/v3/activity/request/"+req+"/items?limit=100", nil, 200)
		files, _ = r["files"].([]any)
		if int(r["num_files"].(float64)) == len(sha) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("harvest reported %v of %d files", r["num_files"], len(sha))
		}
		time.Sleep(100 * time.Millisecond)
	}
	exts := c.call("GET", "/api/data/v3/activity/request/"+req+"/extractors", nil, 200)["extractors"].([]any)
	seen := map[string]bool{}
	for _, e := range exts {
		m := e.(map[string]any)
		seen[m["name"].(string)] = true
		if m["num_errors"].(float64) != 0 {
			t.Errorf("extractor %v reported errors", m)
		}
	}
	for _, want := range []string{"store", "mime_type", "hashes"} {
		if !seen[want] {
			t.Errorf("extractor %s missing from the report %v", want, exts)
		}
	}
	for _, f := range files {
		m := f.(map[string]any)
		itemID := m["item_id"].(string)
		item := c.call("GET", "/api/data/items/"+itemID, nil, 200)
		hashes := item["metadata"].(map[string]any)["hashes"].(map[string]any)
		if hashes["sha256"] != sha[m["name"].(string)] {
			t.Errorf("%s: sha256 %v, want %s", m["name"], hashes["sha256"], sha[m["name"].(string)])
		}
		jobs := c.call("GET", "/api/data/v3/activity/item/"+itemID, nil, 200)["jobs"].([]any)
		if len(jobs) != 1 || jobs[0].(map[string]any)["request_id"] != req {
			t.Errorf("%s: jobs %v", itemID, jobs)
		}
	}
	summary := c.call("GET", "/api/data/summary/data", nil, 200)
	if int(summary["total_files"].(float64)) != len(sha) {
		t.Fatalf("data summary: %v", summary)
	}

	// The workers index what they harvested: every file becomes findable,
	// by name and by an extracted field.
	deadline = time.Now().Add(time.Minute)
	for {
		r := c.call("POST", "/api/data/search", map[string]any{"filters": map[string]any{
			"terms": []map[string]any{{"field": "location_id", "value": locID}}}}, 200)
		if int(r["total_hits"].(float64)) == len(sha) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("search finds %v of %d harvested files", r["total_hits"], len(sha))
		}
		time.Sleep(100 * time.Millisecond)
	}
	hit := c.call("POST", "/api/data/search", map[string]any{"query": "exif", "filters": map[string]any{
		"terms": []map[string]any{{"field": "hashes.sha256", "value": sha["exif.jpg"]}}}}, 200)
	if hit["total_hits"].(float64) != 1 {
		t.Fatalf("search by name and sha256: %v", hit)
	}

	// An upload starts a harvest of that file.
	up := c.call("POST", "/files/uploadstore/inbox/note.txt", []byte("uploaded through the api\n"), 201)
	deadline = time.Now().Add(time.Minute)
	for {
		r := c.call("GET", "/api/data/v3/activity/request/"+up["request_id"].(string)+"/items", nil, 200)
		if r["num_files"].(float64) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("upload not harvested: %v", r)
		}
		time.Sleep(100 * time.Millisecond)
	}
	item := c.call("GET", "/api/data/items/"+up["item_id"].(string), nil, 200)
	if !strings.HasPrefix(item["mime_type"].(string), "text/plain") {
		t.Fatalf("uploaded item: %v", item)
	}
	fmt.Fprintln(io.Discard, item)
}

var (
	oaOnce   sync.Once
	oaRouter routers.Router
	oaErr    error
)

// validate checks a response of the running api against the OpenAPI
// document it serves, as the api's own tests do.
func validate(t *testing.T, req *http.Request, body any, res *http.Response, raw []byte) {
	t.Helper()
	oaOnce.Do(func() {
		doc, _, err := api.Spec()
		if err != nil {
			oaErr = err
			return
		}
		oaRouter, oaErr = gorillamux.NewRouter(doc)
	})
	if oaErr != nil {
		t.Fatal(oaErr)
	}
	var reqBody []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		reqBody = b
	default:
		reqBody, _ = json.Marshal(b)
	}
	// The router matches {path} as one segment: escape the slashes of an
	// upload path for the lookup only.
	u := *req.URL
	u.Host, u.Scheme = "", ""
	if rest, ok := strings.CutPrefix(u.Path, "/files/uploadstore/"); ok {
		u.Path = "/files/uploadstore/" + url.PathEscape(rest)
		u.RawPath = u.Path
	}
	vreq, _ := http.NewRequest(req.Method, u.String(), bytes.NewReader(reqBody))
	vreq.Header = req.Header.Clone()
	route, params, err := oaRouter.FindRoute(vreq)
	if err != nil {
		t.Fatalf("%s %s: not in openapi.yaml: %v", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
		Body: io.NopCloser(bytes.NewReader(raw)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Fatalf("%s %s: response %d does not match openapi.yaml: %v", req.Method, req.URL.Path, res.StatusCode, err)
	}
}
