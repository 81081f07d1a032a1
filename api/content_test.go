package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/models"
)

func contentPath(itemID string) string { return "/api/data/items/" + itemID + "/content" }

// getContent sends GET /api/data/items/{id}/content with extra headers and
// checks the answer against openapi.yaml (206 and 304 here: validateResponse
// wants the JSON error body from every status but 200).
func (e *env) getContent(itemID, token string, header map[string]string) *response {
	e.t.Helper()
	req := httptest.NewRequest("GET", contentPath(itemID), nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	res := &response{t: e.t, Code: rec.Code, Body: rec.Body.Bytes(), Head: rec.Header()}
	if res.Code != http.StatusPartialContent && res.Code != http.StatusNotModified {
		validateResponse(e.t, req, nil, res)
		return res
	}
	routerOnce.Do(func() {}) // validateResponse ran at least once: oaRouter is set
	route, params, err := oaRouter.FindRoute(req)
	if err != nil {
		e.t.Fatal(err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.Code, Header: res.Head,
		Body: io.NopCloser(bytes.NewReader(res.Body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		e.t.Fatalf("response %d does not match openapi.yaml: %v", res.Code, err)
	}
	return res
}

// setItemType gives an inserted item the MIME type a harvest would have found.
func (e *env) setItemType(itemID, mimeType string) {
	e.t.Helper()
	if err := e.db.Exec(`UPDATE items SET mime_type = ? WHERE id = ?`, mimeType, itemID).Error; err != nil {
		e.t.Fatal(err)
	}
}

// checkContent runs the byte-serving contract on one item whose file holds
// data: the whole file, ranges, a range outside it, and conditional
// requests.
func checkContent(t *testing.T, e *env, itemID string, data []byte) {
	t.Helper()
	size := len(data)
	r := e.getContent(itemID, e.adminToken, nil).status(200)
	if !bytes.Equal(r.Body, data) {
		t.Fatalf("whole file: %d bytes, want %d", len(r.Body), size)
	}
	h := r.Head
	if h.Get("Content-Type") != "video/mp4" || !strings.HasPrefix(h.Get("Content-Disposition"), "inline; ") ||
		h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Security-Policy") != "default-src 'none'; sandbox" ||
		h.Get("Accept-Ranges") != "bytes" || h.Get("Content-Length") != fmt.Sprint(size) || h.Get("Cache-Control") != contentCacheControl {
		t.Fatalf("headers %v", h)
	}
	etag, modified := h.Get("ETag"), h.Get("Last-Modified")
	if len(etag) < 3 || etag[0] != '"' || modified == "" {
		t.Fatalf("validators %q %q", etag, modified)
	}
	for rng, want := range map[string][2]int{"bytes=100-199": {100, 199}, fmt.Sprintf("bytes=%d-", size-50): {size - 50, size - 1},
		"bytes=-10": {size - 10, size - 1}, "bytes=300000-300099": {300000, 300099}} {
		r := e.getContent(itemID, e.adminToken, map[string]string{"Range": rng}).status(206)
		if cr := r.Head.Get("Content-Range"); cr != fmt.Sprintf("bytes %d-%d/%d", want[0], want[1], size) ||
			!bytes.Equal(r.Body, data[want[0]:want[1]+1]) || r.Head.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %q, %d bytes", rng, cr, len(r.Body))
		}
	}
	r = e.getContent(itemID, e.adminToken, map[string]string{"Range": "bytes=0-9,20-29"}).status(206)
	if !strings.HasPrefix(r.Head.Get("Content-Type"), "multipart/byteranges") || !bytes.Contains(r.Body, data[20:30]) {
		t.Errorf("several ranges: %q", r.Head.Get("Content-Type"))
	}
	e.getContent(itemID, e.adminToken, map[string]string{"Range": "bytes=0-9", "If-Range": etag}).status(206)
	e.getContent(itemID, e.adminToken, map[string]string{"Range": "bytes=0-9", "If-Range": `"stale"`}).status(200)

	r = e.getContent(itemID, e.adminToken, map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", size+10, size+20)}).status(416)
	if r.errCode() != "range_not_satisfiable" || r.Head.Get("Content-Range") != fmt.Sprintf("bytes */%d", size) {
		t.Errorf("416: %q %s", r.Head.Get("Content-Range"), r.Body)
	}
	e.getContent(itemID, e.adminToken, map[string]string{"If-Match": `"other"`}).status(412)
	for k, v := range map[string]string{"If-None-Match": etag, "If-Modified-Since": modified} {
		if r := e.getContent(itemID, e.adminToken, map[string]string{k: v}).status(304); len(r.Body) != 0 {
			t.Errorf("%s: 304 with a body", k)
		}
	}
	e.getContent(itemID, e.adminToken, map[string]string{"If-None-Match": `"other"`}).status(200)

	// HEAD: the same headers, no bytes of the file read or sent.
	req := httptest.NewRequest("HEAD", contentPath(itemID), nil)
	req.Header.Set("Authorization", "Bearer "+e.adminToken)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != fmt.Sprint(size) ||
		rec.Header().Get("ETag") != etag || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("HEAD: %d, %d bytes, %v", rec.Code, rec.Body.Len(), rec.Header())
	}
}

// contentSample is large enough that S3 ranges are read by windows (the
// first window is 256 KiB) and small enough to hold in a test.
func contentSample() []byte {
	b := make([]byte, 700_000)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func TestItemContentFilesystem(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := mkdirs(t, t.TempDir(), "media")
	data := contentSample()
	writeFile(t, filepath.Join(dir, "media", "clips", "a.mp4"), string(data))
	locID := e.createFSLocation(e.adminToken, "L", dir)["id"].(string)
	item := e.insertItem(locID, "media", "clips/a.mp4")
	checkContent(t, e, item, data)

	// A file changed in storage has a new validator: the old one is not 304.
	etag := e.getContent(item, e.adminToken, nil).Head.Get("ETag")
	writeFile(t, filepath.Join(dir, "media", "clips", "a.mp4"), "new content")
	r := e.getContent(item, e.adminToken, map[string]string{"If-None-Match": etag}).status(200)
	if string(r.Body) != "new content" || r.Head.Get("ETag") == etag {
		t.Fatalf("changed file: %q %q", r.Body, r.Head.Get("ETag"))
	}

	// The file is gone from storage: 404 content_missing.
	if err := os.Remove(filepath.Join(dir, "media", "clips", "a.mp4")); err != nil {
		t.Fatal(err)
	}
	if r := e.getContent(item, e.adminToken, nil).status(404); r.errCode() != "content_missing" {
		t.Fatalf("missing file: %s", r.Body)
	}
}

func TestItemContentUploadStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	data := contentSample()
	r := e.upload(e.adminToken, "clips/b.mp4", string(data)).status(201).json()
	item := r["item_id"].(string)
	e.setItemType(item, "video/mp4")
	checkContent(t, e, item, data)
}

func TestItemContentS3(t *testing.T) {
	t.Parallel()
	srv := testbucket.Start(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	data := contentSample()
	srv.PutObject(t, bucket, "clips/c.mp4", data)
	e := newEnv(t)
	loc := e.do("POST", "/api/data/v3/locations", e.adminToken, map[string]any{"kind": "s3", "name": "S3", "config": map[string]any{
		"endpoint": srv.Endpoint, "region": "us-east-1", "access_key_id": srv.AccessKey, "secret_access_key": srv.SecretKey,
		"path_style": true, "bucket": bucket}}).status(201).json()
	item := e.insertItem(loc["id"].(string), bucket, "clips/c.mp4")
	checkContent(t, e, item, data)

	if r := e.getContent(e.insertItem(loc["id"].(string), bucket, "clips/gone.mp4"), e.adminToken, nil).status(404); r.errCode() != "content_missing" {
		t.Fatalf("missing object: %s", r.Body)
	}
}

// Which types open in the browser and which download; hostile names reach
// the header only encoded.
func TestItemContentDispositionAndNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := mkdirs(t, t.TempDir(), "m")
	locID := e.createFSLocation(e.adminToken, "L", dir)["id"].(string)
	for _, tc := range []struct {
		name, mimeType, wantType, wantDisp string
	}{
		{"clip.mp4", "video/mp4", "video/mp4", "inline"},
		{"song.mp3", "audio/mpeg", "audio/mpeg", "inline"},
		{"photo.jpg", "image/jpeg", "image/jpeg", "inline"},
		{"shot.png", "image/png", "image/png", "inline"},
		{"page.html", "text/html; charset=utf-8", "text/html; charset=utf-8", "attachment"},
		{"logo.svg", "image/svg+xml", "image/svg+xml", "attachment"},
		{"data.xml", "application/xml", "application/xml", "attachment"},
		{"doc.pdf", "application/pdf", "application/pdf", "attachment"},
		{"notes.txt", "text/plain; charset=utf-8", "text/plain; charset=utf-8", "attachment"},
		{"unknown.bin", "", "application/octet-stream", "attachment"},
		{"odd.bin", "not a type", "application/octet-stream", "attachment"},
		{"<img src=x onerror=alert(1)>.mp4", "video/mp4", "video/mp4", "inline"},
		{"ré\"sumé\\%0d\r\nX-Injected: 1.html", "text/html", "text/html", "attachment"},
	} {
		writeFile(t, filepath.Join(dir, "m", tc.name), "content of "+tc.name)
		item := e.insertItem(locID, "m", tc.name)
		e.setItemType(item, tc.mimeType)
		r := e.getContent(item, e.adminToken, nil).status(200)
		cd := r.Head.Get("Content-Disposition")
		if r.Head.Get("Content-Type") != tc.wantType || !strings.HasPrefix(cd, tc.wantDisp+"; ") {
			t.Errorf("%q: %q, %q", tc.name, r.Head.Get("Content-Type"), cd)
		}
		if r.Head.Get("X-Injected") != "" || strings.ContainsAny(cd, "\r\n") || strings.Count(cd, `"`) != 2 {
			t.Errorf("%q: unsafe Content-Disposition %q", tc.name, cd)
		}
		if string(r.Body) != "content of "+tc.name {
			t.Errorf("%q: body %q", tc.name, r.Body)
		}
	}
	item := models.ItemID(models.ContainerID(locID, "m"), "ré\"sumé\\%0d\r\nX-Injected: 1.html")
	cd := e.getContent(item, e.adminToken, nil).Head.Get("Content-Disposition")
	if want := `attachment; filename="r__sum___0d__X-Injected: 1.html"; filename*=UTF-8''r%C3%A9%22sum%C3%A9%5C%250d%0D%0AX-Injected%3A%201.html`; cd != want {
		t.Errorf("Content-Disposition\n%s, want\n%s", cd, want)
	}
}

// An item the caller may not see is 404 exactly like an unknown one; the
// route needs items:read; a deleted item is 404.
func TestItemContentAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pubDir, privDir := mkdirs(t, t.TempDir(), "c"), mkdirs(t, t.TempDir(), "c")
	writeFile(t, filepath.Join(pubDir, "c", "pub.mp4"), "public bytes")
	writeFile(t, filepath.Join(privDir, "c", "priv.mp4"), "private bytes")
	pubLoc := e.createFSLocation(e.adminToken, "Public", pubDir)["id"].(string)
	privLoc := e.createFSLocation(e.adminToken, "Private", privDir)["id"].(string)
	pub := e.insertItem(pubLoc, "c", "pub.mp4")
	priv := e.insertItem(privLoc, "c", "priv.mp4")
	tok := e.hiddenItemUser(privLoc, "viewer@example.com", "items:read")

	if r := e.getContent(pub, tok, nil).status(200); string(r.Body) != "public bytes" {
		t.Fatalf("visible item: %q", r.Body)
	}
	hidden := e.getContent(priv, tok, map[string]string{"Range": "bytes=0-3"}).status(404)
	unknown := e.getContent("no-such-item", tok, nil).status(404)
	if bytes.Contains(hidden.Body, []byte("private")) || hidden.errCode() != unknown.errCode() {
		t.Fatalf("hidden %s, unknown %s", hidden.Body, unknown.Body)
	}
	if hidden.Head.Get("ETag") != "" || hidden.Head.Get("Content-Disposition") != "" {
		t.Fatalf("a hidden item's headers: %v", hidden.Head)
	}
	// The admin sees it.
	e.getContent(priv, e.adminToken, nil).status(200)

	_, noRead := e.userWithScopes("search-only@example.com", "search:read")
	if r := e.getContent(pub, noRead, nil).status(403); r.errCode() != "missing_scope" {
		t.Fatalf("without items:read: %s", r.Body)
	}
	e.getContent(pub, "", nil).status(401)

	e.do("DELETE", "/api/data/items/"+pub, e.adminToken, nil).status(200)
	e.getContent(pub, e.adminToken, nil).status(404)
}
