package api

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/models"
)

// doPath sends a request whose path ends in a wildcard parameter (upload
// and artifact paths hold slashes) through the real router. The OpenAPI
// router matches {path} against one segment only, so the response is
// validated against a copy of the request whose wildcard part has its
// slashes percent-encoded; the server itself sees the path as given.
func (e *env) doPath(method, prefix, rest, token string, body []byte, contentType string) *response {
	e.t.Helper()
	req := httptest.NewRequest(method, prefix+rest, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	res := &response{t: e.t, Code: rec.Code, Body: rec.Body.Bytes(), Head: rec.Header()}
	vrest := strings.ReplaceAll(rest, "/", "%2F")
	if vrest == "" {
		vrest = "_"
	}
	vreq := httptest.NewRequest(method, prefix+vrest, nil)
	validateResponse(e.t, vreq, body, res)
	return res
}

// mkdirs creates directories (and returns dir for chaining).
func mkdirs(t *testing.T, dir string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeFile(t *testing.T, p string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// createFSLocation creates a filesystem location on dir and returns its JSON.
func (e *env) createFSLocation(token, name, dir string, groups ...string) map[string]any {
	e.t.Helper()
	cfg := map[string]any{"path": dir}
	if groups != nil {
		cfg["groups"] = groups
	}
	return e.do("POST", "/api/data/v3/locations", token, map[string]any{"kind": "filesystem", "name": name, "config": cfg}).
		status(201).json()
}

func (e *env) createGroup(name string) string {
	e.t.Helper()
	return e.do("POST", "/api/data/v3/groups", e.adminToken, map[string]any{"name": name}).status(201).json()["id"].(string)
}

func (e *env) joinGroup(userID, groupID string) {
	e.t.Helper()
	e.do("PUT", "/api/data/v3/users/"+userID+"/groups/"+groupID, e.adminToken, nil).status(200)
}

func (e *env) count(query string, args ...any) int64 {
	e.t.Helper()
	var n int64
	if err := e.db.Raw(query, args...).Scan(&n).Error; err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) auditCount(kind, action, target string) int64 {
	return e.count(`SELECT count(*) FROM audit_events WHERE target_kind = ? AND action_key = ? AND target_id = ?`, kind, action, target)
}

func TestLocationCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := mkdirs(t, t.TempDir(), "alpha", "beta", ".hidden")
	loc := e.createFSLocation(e.adminToken, "Media", dir)
	id := loc["id"].(string)
	cfg := loc["config"].(map[string]any)
	if loc["version"] != 0.0 || cfg["version"] != 0.0 || cfg["path"] != dir || cfg["groups"] != nil || loc["kind"] != "filesystem" {
		t.Fatalf("created %v", loc)
	}
	// Creating discovers the containers at once, disabled.
	if n := e.count(`SELECT count(*) FROM containers WHERE location_id = ? AND NOT enabled`, id); n != 2 {
		t.Fatalf("%d containers discovered, want 2", n)
	}
	if e.auditCount("location", "create", id) != 1 {
		t.Fatal("no audit event for create")
	}

	got := e.do("GET", "/api/data/v3/locations/"+id, e.adminToken, nil).status(200).json()
	if got["name"] != "Media" {
		t.Fatalf("get %v", got)
	}
	var list struct {
		Locations []map[string]any `json:"locations"`
	}
	e.do("GET", "/api/data/v3/locations", e.adminToken, nil).status(200).decode(&list)
	if len(list.Locations) != 2 { // the upload store and ours
		t.Fatalf("list %v", list.Locations)
	}

	// Update with the current version; the version moves on.
	dir2 := mkdirs(t, t.TempDir(), "gamma")
	put := e.do("PUT", "/api/data/v3/locations/"+id, e.adminToken, map[string]any{
		"kind": "filesystem", "name": "Media 2", "config": map[string]any{"path": dir2}, "version": 0,
	}).status(200).json()
	if put["version"] != 1.0 || put["name"] != "Media 2" || put["config"].(map[string]any)["version"] != 1.0 {
		t.Fatalf("put %v", put)
	}
	if n := e.count(`SELECT count(*) FROM containers WHERE location_id = ? AND name = 'gamma'`, id); n != 1 {
		t.Fatal("update did not discover the new containers")
	}
	// A stale version is a conflict; a missing one a 400.
	r := e.do("PUT", "/api/data/v3/locations/"+id, e.adminToken, map[string]any{
		"kind": "filesystem", "name": "stale", "config": map[string]any{"path": dir2}, "version": 0,
	})
	if r.Code != 409 || r.errCode() != "version_conflict" {
		t.Fatalf("stale version: %d %s", r.Code, r.Body)
	}
	r = e.do("PUT", "/api/data/v3/locations/"+id, e.adminToken, map[string]any{
		"kind": "filesystem", "name": "x", "config": map[string]any{"path": dir2},
	}).status(400)
	if r.field("version") == "" {
		t.Fatalf("missing version: %s", r.Body)
	}
	// A client sending the object back as it got it (version inside config) works.
	back := e.do("GET", "/api/data/v3/locations/"+id, e.adminToken, nil).status(200).json()
	delete(back, "version")
	back["name"] = "Media 3"
	if got := e.do("PUT", "/api/data/v3/locations/"+id, e.adminToken, back).status(200).json(); got["version"] != 2.0 {
		t.Fatalf("round trip put: %v", got)
	}
	// A failed connection leaves the location as it was.
	r = e.do("PUT", "/api/data/v3/locations/"+id, e.adminToken, map[string]any{
		"kind": "filesystem", "name": "x", "config": map[string]any{"path": filepath.Join(dir2, "nope")}, "version": 2,
	}).status(400)
	if r.field("path") == "" {
		t.Fatalf("bad path on update: %s", r.Body)
	}
	if got := e.do("GET", "/api/data/v3/locations/"+id, e.adminToken, nil).status(200).json(); got["version"] != 2.0 || got["name"] != "Media 3" {
		t.Fatalf("failed update changed the location: %v", got)
	}

	// Delete cascades to containers, items and artifacts, files included.
	itemID := e.insertItem(id, "gamma", "clip.mp4")
	art := filepath.Join(e.cfg.DataDir, "artifacts", "loc", itemID, "thumb.jpg")
	writeFile(t, art, "jpeg")
	e.insertArtifact(itemID, "loc/"+itemID+"/thumb.jpg")
	e.do("DELETE", "/api/data/v3/locations/"+id, e.adminToken, nil).status(200)
	if _, err := os.Stat(art); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("artifact file left behind: %v", err)
	}
	for _, tbl := range []string{"containers", "items"} {
		if n := e.count(`SELECT count(*) FROM `+tbl+` WHERE location_id = ?`, id); n != 0 {
			t.Fatalf("%d %s left", n, tbl)
		}
	}
	if n := e.count(`SELECT count(*) FROM artifacts WHERE item_id = ?`, itemID); n != 0 {
		t.Fatal("artifact rows left")
	}
	if n := e.count(`SELECT count(*) FROM search_outbox WHERE item_id = ?`, itemID); n != 1 {
		t.Fatal("the deleted item was not queued for removal from search")
	}
	if _, err := os.Stat(filepath.Join(dir2, "gamma")); err != nil {
		t.Fatal("deleting a location touched its storage")
	}
	if e.auditCount("location", "delete", id) != 1 || e.auditCount("location", "update", id) != 2 {
		t.Fatal("audit events missing")
	}
	e.do("GET", "/api/data/v3/locations/"+id, e.adminToken, nil).status(404)
	e.do("DELETE", "/api/data/v3/locations/"+id, e.adminToken, nil).status(404)
}

func TestLocationValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFile(t, file, "x")
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"unknown kind", map[string]any{"kind": "ftp", "name": "x", "config": map[string]any{}}, "kind"},
		{"no kind", map[string]any{"name": "x", "config": map[string]any{"path": dir}}, "kind"},
		{"no name", map[string]any{"kind": "filesystem", "config": map[string]any{"path": dir}}, "name"},
		{"relative path", map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": "media"}}, "path"},
		{"missing dir", map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": filepath.Join(dir, "nope")}}, "path"},
		{"not a dir", map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": file}}, "path"},
		{"no path", map[string]any{"kind": "filesystem", "name": "x"}, "path"},
		{"unknown key", map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": dir, "root": "/"}}, "root"},
		{"number value", map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": 3}}, "path"},
		{"unknown group", map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": dir, "groups": []string{"nope"}}}, "groups"},
		{"groups not an array", map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": dir, "groups": "g"}}, "groups"},
		{"groups outside config", map[string]any{"kind": "filesystem", "name": "x", "config": map[string]any{"path": dir}, "groups": []string{}}, "groups"},
		{"s3 bad endpoint", map[string]any{"kind": "s3", "name": "x", "config": map[string]any{"endpoint": "ftp://x"}}, "endpoint"},
		{"s3 metadata address", map[string]any{"kind": "s3", "name": "x", "config": map[string]any{"endpoint": "http://169.254.169.254"}}, "endpoint"},
		{"s3 bad path_style", map[string]any{"kind": "s3", "name": "x", "config": map[string]any{"endpoint": "http://127.0.0.1:1", "path_style": "maybe"}}, "path_style"},
	}
	for _, tc := range cases {
		r := e.do("POST", "/api/data/v3/locations", e.adminToken, tc.body)
		if r.Code != 400 || r.field(tc.field) == "" {
			t.Errorf("%s: %d %s, want 400 naming %s", tc.name, r.Code, r.Body, tc.field)
		}
	}
	// Several problems come back together.
	r := e.do("POST", "/api/data/v3/locations", e.adminToken, map[string]any{"kind": "filesystem", "config": map[string]any{"path": "rel"}}).status(400)
	if r.field("name") == "" || r.field("path") == "" {
		t.Fatalf("problems not reported together: %s", r.Body)
	}
	if r := e.do("POST", "/api/data/v3/locations", e.adminToken, map[string]any{"kind": "uploadstore", "name": "x"}); r.Code != 409 {
		t.Fatalf("second upload store: %d %s", r.Code, r.Body)
	}
	if n := e.count(`SELECT count(*) FROM locations`); n != 1 {
		t.Fatalf("refused creations left %d locations", n)
	}
}

func TestLocationBuiltinUploadStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if r := e.do("DELETE", "/api/data/v3/locations/uploadstore", e.adminToken, nil); r.Code != 409 || r.errCode() != "builtin_location" {
		t.Fatalf("delete upload store: %d %s", r.Code, r.Body)
	}
	r := e.do("PUT", "/api/data/v3/locations/uploadstore", e.adminToken, map[string]any{
		"kind": "filesystem", "name": "x", "config": map[string]any{"path": t.TempDir()}, "version": 0})
	if r.Code != 409 || r.errCode() != "builtin_location" {
		t.Fatalf("change kind of upload store: %d %s", r.Code, r.Body)
	}
	other := e.createFSLocation(e.adminToken, "Other", t.TempDir())
	r = e.do("PUT", "/api/data/v3/locations/"+other["id"].(string), e.adminToken, map[string]any{
		"kind": "uploadstore", "name": "x", "config": map[string]any{}, "version": 0})
	if r.Code != 409 || r.errCode() != "builtin_location" {
		t.Fatalf("second upload store by update: %d %s", r.Code, r.Body)
	}
	got := e.do("PUT", "/api/data/v3/locations/uploadstore", e.adminToken, map[string]any{
		"kind": "uploadstore", "name": "Uploads", "config": map[string]any{}, "version": 0}).status(200).json()
	if got["name"] != "Uploads" || got["version"] != 1.0 {
		t.Fatalf("rename upload store: %v", got)
	}
}

func TestLocationGroupsAndVisibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := e.createGroup("Editors")
	grouped := e.createFSLocation(e.adminToken, "Grouped", t.TempDir(), g)
	open := e.createFSLocation(e.adminToken, "Open", t.TempDir())
	gid, oid := grouped["id"].(string), open["id"].(string)
	if gs := grouped["config"].(map[string]any)["groups"].([]any); len(gs) != 1 || gs[0] != g {
		t.Fatalf("groups %v", grouped["config"])
	}
	var add int64
	if add = e.count(`SELECT count(*) FROM audit_events WHERE target_kind = 'location' AND action_key = 'add-group' AND target_id = ? AND additional_id = ?`, gid, g); add != 1 {
		t.Fatalf("add-group audit events: %d", add)
	}

	uid, tok := e.userWithScopes("reader@example.com", "locations:read", "locations:write")
	names := func() []string {
		var list struct {
			Locations []struct{ Name string } `json:"locations"`
		}
		e.do("GET", "/api/data/v3/locations", tok, nil).status(200).decode(&list)
		var out []string
		for _, l := range list.Locations {
			out = append(out, l.Name)
		}
		return out
	}
	if got := strings.Join(names(), ","); got != "Open,Upload store" {
		t.Fatalf("a user in no group sees %s", got)
	}
	if r := e.do("GET", "/api/data/v3/locations/"+gid, tok, nil); r.Code != 403 {
		t.Fatalf("get invisible location: %d", r.Code)
	}
	if r := e.do("DELETE", "/api/data/v3/locations/"+gid, tok, nil); r.Code != 403 {
		t.Fatalf("delete invisible location: %d", r.Code)
	}
	e.do("GET", "/api/data/v3/locations/"+oid, tok, nil).status(200)
	e.do("GET", "/api/data/v3/locations/nope", tok, nil).status(404)

	e.joinGroup(uid, g)
	if got := strings.Join(names(), ","); got != "Grouped,Open,Upload store" {
		t.Fatalf("a member sees %s", got)
	}
	e.do("GET", "/api/data/v3/locations/"+gid, tok, nil).status(200)

	// Groups absent on update are kept; null clears them.
	path := grouped["config"].(map[string]any)["path"]
	put := e.do("PUT", "/api/data/v3/locations/"+gid, e.adminToken, map[string]any{
		"kind": "filesystem", "name": "Grouped", "config": map[string]any{"path": path}, "version": 0}).status(200).json()
	if put["config"].(map[string]any)["groups"] == nil {
		t.Fatal("absent groups cleared the groups")
	}
	put = e.do("PUT", "/api/data/v3/locations/"+gid, e.adminToken, map[string]any{
		"kind": "filesystem", "name": "Grouped", "config": map[string]any{"path": path, "groups": nil}, "version": 1}).status(200).json()
	if put["config"].(map[string]any)["groups"] != nil {
		t.Fatal("null groups did not clear the groups")
	}
}

// An s3 location against a real S3 server: secrets never appear in any
// answer, and an update without the secret keeps it.
func TestLocationS3SecretsNeverReturned(t *testing.T) {
	t.Parallel()
	srv := testbucket.Start(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	e := newEnv(t)
	cfg := map[string]any{"endpoint": srv.Endpoint, "region": "us-east-1", "access_key_id": srv.AccessKey,
		"secret_access_key": srv.SecretKey, "path_style": true}
	noSecret := func(r *response) *response {
		t.Helper()
		if bytes.Contains(r.Body, []byte(srv.SecretKey)) || bytes.Contains(r.Body, []byte("secret_access_key\":\"")) {
			t.Fatalf("a secret in a response: %s", r.Body)
		}
		return r
	}
	created := noSecret(e.do("POST", "/api/data/v3/locations", e.adminToken, map[string]any{"kind": "s3", "name": "S3", "config": cfg}).status(201)).json()
	id := created["id"].(string)
	if n := e.count(`SELECT count(*) FROM containers WHERE location_id = ? AND name = ?`, id, bucket); n != 1 {
		t.Fatalf("bucket %s not discovered", bucket)
	}
	noSecret(e.do("GET", "/api/data/v3/locations/"+id, e.adminToken, nil).status(200))
	noSecret(e.do("GET", "/api/data/v3/locations", e.adminToken, nil).status(200))
	noSecret(e.do("GET", "/api/data/locations/"+id+"/containers", e.adminToken, nil).status(200))

	// Sending back what we got (no secret) keeps the secret: Check still passes.
	back := created["config"].(map[string]any)
	back["bucket"] = bucket
	noSecret(e.do("PUT", "/api/data/v3/locations/"+id, e.adminToken, map[string]any{"kind": "s3", "name": "S3", "config": back, "version": 0}).status(200))
	// A wrong secret is refused naming the field, without echoing it.
	wrong := map[string]any{}
	for k, v := range cfg {
		wrong[k] = v
	}
	wrong["secret_access_key"] = "not-the-secret-123456"
	r := e.do("PUT", "/api/data/v3/locations/"+id, e.adminToken, map[string]any{"kind": "s3", "name": "S3", "config": wrong, "version": 1}).status(400)
	if r.field("secret_access_key") == "" || bytes.Contains(r.Body, []byte("not-the-secret")) {
		t.Fatalf("wrong secret: %s", r.Body)
	}
	var stored models.Location
	if err := e.db.WithContext(context.Background()).Where("id = ?", id).Take(&stored).Error; err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(stored.Config, []byte(srv.SecretKey)) || stored.Version != 1 {
		t.Fatalf("stored config lost the secret or version moved: v%d", stored.Version)
	}
}

// insertItem adds a live item (and its container) by hand, as a harvest would.
func (e *env) insertItem(locID, container, path string) string {
	e.t.Helper()
	ctrID := models.ContainerID(locID, container)
	itemID := models.ItemID(ctrID, path)
	if err := e.db.Exec(`INSERT INTO containers (id, location_id, name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		ctrID, locID, container).Error; err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.Exec(`INSERT INTO items (id, location_id, container_id, path, name, size, etag, mime_type, metadata)
		VALUES (?, ?, ?, ?, ?, 4, 'e1', 'video/mp4', '{"mediainfo": {"duration": 1.5}}')`,
		itemID, locID, ctrID, path, filepath.Base(path)).Error; err != nil {
		e.t.Fatal(err)
	}
	return itemID
}

func (e *env) insertArtifact(itemID, path string) {
	e.t.Helper()
	if err := e.db.Exec(`INSERT INTO artifacts (item_id, path, extractor, kind, width, height) VALUES (?, ?, 'thumbnail', 'thumbnail', 64, 36)`,
		itemID, path).Error; err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) insertResult(itemID, extractor, errText string) {
	e.t.Helper()
	run := models.MustJSON(models.ExtractorRun{Version: "1.0", Error: errText, RanAt: time.Now().UTC()})
	if err := e.db.Exec(`UPDATE items SET results = results || jsonb_build_object(?::text, ?::jsonb) WHERE id = ?`,
		extractor, run, itemID).Error; err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) containerOf(locID, name string) string {
	return models.ContainerID(locID, name)
}
