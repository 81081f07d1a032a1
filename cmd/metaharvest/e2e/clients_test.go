package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// The calls public clients of the original product make, sent to a
// started api exactly as they send them (method, path, headers, body),
// each answered so that the client ends without an error:
//
//   - gm-api-python (gmapi/gmapi.py): `gm comment add|list|delete`
//     through python-requests: POST with data=json.dumps(...) and only the
//     Authorization header (so no Content-Type), GET, DELETE with data=""
//     (Content-Length: 0); every answer goes through r.json().
//   - air-api-sample (curio_logo.py): OPTIONS then GET /api/data/train/logos
//     with Authorization and Content-Type: application/json, then
//     raise_for_status() and response.json().
//
// It also sets a custom field value through the api and finds it with a
// search once a worker process has indexed it.
func TestOriginalClientsAgainstAStartedServer(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	c := startAPI(t, p, "ADMIN_EMAIL=admin@example.com", "ADMIN_PASSWORD=client-password-1")
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	c.token = c.call("POST", "/api/login", map[string]string{"email": "admin@example.com", "password": "client-password-1"}, 200)["token"].(string)
	key := c.call("POST", "/api/data/api-keys", map[string]any{"name": "gm client"}, 201)["jwt"].(string)
	up := c.call("POST", "/files/uploadstore/clips/take1.txt", []byte("a take of the film\n"), 201)
	itemID := up["item_id"].(string)

	// python-requests as these clients call it.
	send := func(method, path string, body []byte, header map[string]string) (int, map[string]any) {
		t.Helper()
		var r io.Reader
		if body != nil {
			r = bytes.NewReader(body)
		}
		req, _ := http.NewRequest(method, c.base+path, r)
		req.Header.Set("User-Agent", "python-requests/2.31.0")
		req.Header.Set("Accept-Encoding", "gzip, deflate")
		req.Header.Set("Accept", "*/*")
		req.Header.Set("Connection", "keep-alive")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if body != nil {
			req.ContentLength = int64(len(body))
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil { // r.json()
			t.Fatalf("%s %s: %d, not JSON (the client's r.json() raises): %q", method, path, res.StatusCode, raw)
		}
		validate(t, req, body, res, raw)
		return res.StatusCode, out
	}
	gm := map[string]string{"Authorization": "Bearer " + key}

	// gm comment add -gm_item_id ID -m "..."
	status, added := send("POST", "/api/data/comments",
		[]byte(`{"target_type": "item", "target_id": "`+itemID+`", "body": "Nice take, see 00:12"}`), gm)
	if status != 201 || added["id"] == nil || added["body"] != "Nice take, see 00:12" {
		t.Fatalf("comment add: %d %v", status, added)
	}
	// gm comment list -gm_item_id ID (http_get: a non-2xx prints "No data found.")
	status, list := send("GET", "/api/data/comments?target_type=item&page=0&target_id="+itemID, nil, gm)
	if status != 200 || len(list["comments"].([]any)) != 1 {
		t.Fatalf("comment list: %d %v", status, list)
	}
	// gm comment delete -gm_item_id ID -comment_id CID, then the list again.
	status, deleted := send("DELETE", "/api/data/comments/"+added["id"].(string), []byte{}, gm)
	if status != 200 || deleted["deleted"] != true {
		t.Fatalf("comment delete: %d %v", status, deleted)
	}
	status, list = send("GET", "/api/data/comments?target_type=item&page=0&target_id="+itemID, nil, gm)
	if status != 200 || len(list["comments"].([]any)) != 0 {
		t.Fatalf("comment list after delete: %d %v", status, list)
	}

	// curio_logo.py: check_logo() then list_logo_training().
	curio := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	status, can := send("OPTIONS", "/api/data/train/logos", nil, curio)
	if status != 200 || can["can_train_logos"] != false {
		t.Fatalf("OPTIONS train/logos: %d %v", status, can)
	}
	status, trainings := send("GET", "/api/data/train/logos", nil, curio)
	if status != 200 || trainings["logo_training_requests"] == nil {
		t.Fatalf("GET train/logos: %d %v", status, trainings)
	}

	// A custom field value written through the api is found by a search
	// once the worker has drained the outbox.
	field := c.call("POST", "/api/data/v3/fields", map[string]any{"name": "Take", "data_type": "number"}, 201)["id"].(string)
	c.call("PUT", "/api/data/v3/fielddata/"+itemID+"/field/"+field, map[string]any{"numeric_value": 7}, 200)
	written := time.Now()
	filter := map[string]any{"filters": map[string]any{"ranges": []map[string]any{{"field": "fields." + field, "from": "7", "to": "7"}}}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := c.call("POST", "/api/data/search", filter, 200)
		if r["total_hits"].(float64) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the value is not searchable: %v", r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("field value searchable %v after the write", time.Since(written).Round(time.Millisecond))
}

// startAPI starts an api process of the platform and returns a client of
// it once it is ready.
func startAPI(t *testing.T, p *platform, env ...string) *client {
	t.Helper()
	addr := testproc.FreeAddr(t)
	api := testproc.Start(t, "api", p.env(append([]string{"HTTP_ADDR=" + addr}, env...)...))
	c := &client{t: t, base: "http://" + addr}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(c.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return c
			}
		}
		if time.Now().After(deadline) || api.Exited() {
			t.Fatalf("api not ready: %v\n%s", err, api.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
