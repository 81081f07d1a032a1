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
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/search"
)

const artifactPrefix = "/api/data/artifacts/"

func TestArtifactServing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "pub", "priv"))["id"].(string)
	pub := e.insertItem(locID, "pub", "a.mp4")
	priv := e.insertItem(locID, "priv", "b.mp4")
	dir := filepath.Join(e.cfg.DataDir, "artifacts")
	writeFile(t, filepath.Join(dir, "th", pub, "thumb.png"), "png bytes")
	writeFile(t, filepath.Join(dir, "th", priv, "thumb.png"), "private png")
	e.insertArtifact(pub, "th/"+pub+"/thumb.png")
	e.insertArtifact(priv, "th/"+priv+"/thumb.png")
	// A row whose file is missing, one whose file is a symlink out of the
	// artifacts directory, and a file without a row.
	e.insertArtifact(pub, "th/"+pub+"/missing.png")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, outside, "secret")
	if err := os.Symlink(outside, filepath.Join(dir, "th", pub, "link.png")); err != nil {
		t.Fatal(err)
	}
	e.insertArtifact(pub, "th/"+pub+"/link.png")
	writeFile(t, filepath.Join(dir, "th", pub, "norow.png"), "no row")

	r := e.doPath("GET", artifactPrefix, "th/"+pub+"/thumb.png", e.adminToken, nil, "").status(200)
	if string(r.Body) != "png bytes" || r.Head.Get("Content-Type") != "image/png" || r.Head.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("served %q as %q", r.Body, r.Head.Get("Content-Type"))
	}

	g := e.createGroup("Private")
	e.do("PUT", "/api/data/containers", e.adminToken, map[string]any{"id": e.containerOf(locID, "priv"), "location_id": locID,
		"enabled": false, "groups": []string{g}}).status(200)
	_, tok := e.userWithScopes("art@example.com", "items:read")
	e.doPath("GET", artifactPrefix, "th/"+pub+"/thumb.png", tok, nil, "").status(200)
	e.doPath("GET", artifactPrefix, "th/"+priv+"/thumb.png", tok, nil, "").status(403)

	for _, p := range []string{"th/" + pub + "/missing.png", "th/" + pub + "/link.png", "th/" + pub + "/norow.png", "nope.png"} {
		if r := e.doPath("GET", artifactPrefix, p, e.adminToken, nil, ""); r.Code != 404 {
			t.Errorf("%s: %d %s", p, r.Code, r.Body)
		}
	}
	for _, p := range []string{
		"../uploadstore/x", "th/../../etc/passwd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "th%2f..%2f..%2fx",
		"/etc/passwd", "th//x.png", "th/%00.png", "th%5c..%5cx", "",
	} {
		if r := e.doPath("GET", artifactPrefix, p, e.adminToken, nil, ""); r.Code != 400 && r.Code != 404 {
			t.Errorf("%q: %d %s", p, r.Code, r.Body)
		}
	}

	// The artifacts of a deleted item are gone with it.
	e.do("DELETE", "/api/data/items/"+pub, e.adminToken, nil).status(200)
	e.doPath("GET", artifactPrefix, "th/"+pub+"/thumb.png", e.adminToken, nil, "").status(404)
	if _, err := os.Stat(filepath.Join(dir, "th", pub, "thumb.png")); !os.IsNotExist(err) {
		t.Fatal("artifact file of a deleted item left")
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatal("removing artifacts followed a symlink out of the directory")
	}
}

// getArtifact sends GET /api/data/artifacts/<rest> with extra headers. A
// 206 or 304 is checked against openapi.yaml here (validateResponse wants
// JSON from every status but 200); other responses go through
// validateResponse.
func (e *env) getArtifact(rest, token string, header map[string]string) *response {
	e.t.Helper()
	req := httptest.NewRequest("GET", artifactPrefix+rest, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	res := &response{t: e.t, Code: rec.Code, Body: rec.Body.Bytes(), Head: rec.Header()}
	vreq := httptest.NewRequest("GET", artifactPrefix+strings.ReplaceAll(rest, "/", "%2F"), nil)
	for k, v := range header {
		vreq.Header.Set(k, v)
	}
	if res.Code != http.StatusPartialContent && res.Code != http.StatusNotModified {
		validateResponse(e.t, vreq, nil, res)
		return res
	}
	doc, _, err := Spec()
	if err != nil {
		e.t.Fatal(err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		e.t.Fatal(err)
	}
	route, params, err := router.FindRoute(vreq)
	if err != nil {
		e.t.Fatal(err)
	}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.Code, Header: res.Head,
		Body: io.NopCloser(bytes.NewReader(res.Body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		e.t.Fatalf("response %d does not match openapi.yaml: %v", res.Code, err)
	}
	return res
}

// Artifacts carry the content type of their kind, validators and caching
// headers; previews are served by byte range (players seek), a range
// outside the file is a JSON 416, and a client holding the current copy
// gets 304.
func TestArtifactTypesRangesAndCaching(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "media"))["id"].(string)
	item := e.insertItem(locID, "media", "clip.mp4")
	dir := filepath.Join(e.cfg.DataDir, "artifacts")
	content := make([]byte, 1000)
	for i := range content {
		content[i] = byte(i % 251)
	}
	for rel, want := range map[string]string{
		"video_main_frames/frames/000012480.jpg": "image/jpeg",
		"thumbnailer/thumb.png":                  "image/png",
		"thumbnailer/thumb.webp":                 "image/webp",
		"video_previews/preview.mp4":             "video/mp4",
		"audio_previews/preview.m4a":             "audio/mp4",
		"audio_previews/preview.mp3":             "audio/mpeg",
	} {
		p := item + "/" + rel
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), string(content))
		e.insertArtifact(item, p)
		r := e.getArtifact(p, e.adminToken, nil).status(200)
		if r.Head.Get("Content-Type") != want || !bytes.Equal(r.Body, content) {
			t.Errorf("%s: %q, %d bytes", rel, r.Head.Get("Content-Type"), len(r.Body))
		}
	}

	p := item + "/video_previews/preview.mp4"
	r := e.getArtifact(p, e.adminToken, nil).status(200)
	etag, modified := r.Head.Get("ETag"), r.Head.Get("Last-Modified")
	if !strings.HasPrefix(etag, `"`) || modified == "" || r.Head.Get("Cache-Control") != "private, max-age=86400" ||
		r.Head.Get("Accept-Ranges") != "bytes" || r.Head.Get("Content-Length") != "1000" {
		t.Fatalf("headers %v", r.Head)
	}

	// One range, an open-ended one, a suffix, and a range resumed with If-Range.
	for rng, want := range map[string][2]int{"bytes=100-199": {100, 199}, "bytes=900-": {900, 999}, "bytes=-10": {990, 999}} {
		r := e.getArtifact(p, e.adminToken, map[string]string{"Range": rng}).status(206)
		if cr := r.Head.Get("Content-Range"); cr != fmt.Sprintf("bytes %d-%d/1000", want[0], want[1]) ||
			!bytes.Equal(r.Body, content[want[0]:want[1]+1]) || r.Head.Get("Content-Type") != "video/mp4" {
			t.Errorf("%s: %d %q %d bytes", rng, r.Code, cr, len(r.Body))
		}
	}
	e.getArtifact(p, e.adminToken, map[string]string{"Range": "bytes=0-9", "If-Range": etag}).status(206)
	// A stale If-Range gets the whole (new) file.
	e.getArtifact(p, e.adminToken, map[string]string{"Range": "bytes=0-9", "If-Range": `"stale"`}).status(200)
	// Several ranges at once: multipart/byteranges.
	r = e.getArtifact(p, e.adminToken, map[string]string{"Range": "bytes=0-9,20-29"}).status(206)
	if !strings.HasPrefix(r.Head.Get("Content-Type"), "multipart/byteranges") {
		t.Errorf("multi-range content type %q", r.Head.Get("Content-Type"))
	}

	// Outside the file: 416 with the JSON error body and the file's size.
	r = e.getArtifact(p, e.adminToken, map[string]string{"Range": "bytes=5000-6000"}).status(416)
	if r.errCode() != "range_not_satisfiable" || r.Head.Get("Content-Range") != "bytes */1000" {
		t.Errorf("416: %q %q %s", r.errCode(), r.Head.Get("Content-Range"), r.Body)
	}
	r = e.getArtifact(p, e.adminToken, map[string]string{"If-Match": `"other"`}).status(412)
	if r.errCode() != "precondition_failed" {
		t.Errorf("412: %s", r.Body)
	}

	// The client's copy is current: 304 without a body, by ETag or by date.
	for h, v := range map[string]string{"If-None-Match": etag, "If-Modified-Since": modified} {
		r = e.getArtifact(p, e.adminToken, map[string]string{h: v}).status(304)
		if len(r.Body) != 0 {
			t.Errorf("%s: 304 with a body", h)
		}
	}
	// A rewritten file has a new validator.
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), later, later)
	r = e.getArtifact(p, e.adminToken, map[string]string{"If-None-Match": etag}).status(200)
	if r.Head.Get("ETag") == etag {
		t.Error("the ETag did not change with the file")
	}

	// Ranges follow the item's access rules like the rest.
	_, tok := e.userWithScopes("ranges@example.com", "search:read")
	e.getArtifact(p, tok, map[string]string{"Range": "bytes=0-9"}).status(403)
}

// A segment's thumbnail carries its URL, in search results and in GET
// /api/data/segments/{id} (both validated against openapi.yaml), and the
// URL serves the frame with the item's access rules.
func TestSegmentThumbnailURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	eng, err := search.Open(search.Config{DB: e.db})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Search = eng
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "media"))["id"].(string)
	item := e.insertItem(locID, "media", "clip.mp4")
	frame := item + "/video_main_frames/frames/000002000.jpg"
	writeFile(t, filepath.Join(e.cfg.DataDir, "artifacts", filepath.FromSlash(frame)), "jpeg bytes")
	e.insertArtifact(item, frame)
	seg := search.Segment{ID: item + "-2000", ItemID: item, Time: 2,
		Thumbnail: &search.Thumbnail{Thumbnail: extractors.Thumbnail{Path: frame, Width: 320, Height: 240, Type: "image"}}}
	if err := eng.UpsertSegments(context.Background(), []search.Segment{seg}); err != nil {
		t.Fatal(err)
	}
	wantURL := "/api/data/artifacts/" + frame

	got := e.do("GET", "/api/data/segments/"+seg.ID, e.adminToken, nil).status(200).json()
	th, _ := got["thumbnail"].(map[string]any)
	if th["url"] != wantURL || th["path"] != frame || th["width"] != 320.0 || th["type"] != "image" {
		t.Fatalf("segment %v", got)
	}
	res := e.do("POST", "/api/data/segments/search", e.adminToken, map[string]any{
		"filters": map[string]any{"exact_terms": []map[string]any{{"field": "item_id", "value": item}}}}).status(200).json()
	results, _ := res["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("search %v", res)
	}
	if th, _ := results[0].(map[string]any)["result"].(map[string]any)["thumbnail"].(map[string]any); th["url"] != wantURL {
		t.Fatalf("search result %v", results[0])
	}
	r := e.getArtifact(strings.TrimPrefix(wantURL, artifactPrefix), e.adminToken, nil).status(200)
	if string(r.Body) != "jpeg bytes" || r.Head.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("frame %q %q", r.Body, r.Head.Get("Content-Type"))
	}
}
