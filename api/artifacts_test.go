package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/search"
)

const artifactPrefix = "/api/data/artifacts/"

// artifactKinds are the artifact stores the artifact tests run on: the
// same expectations hold for a directory and a bucket.
var artifactKinds = map[string]func(t *testing.T) func(*config.Config){
	blobstore.KindDirectory: func(*testing.T) func(*config.Config) { return func(*config.Config) {} },
	blobstore.KindBucket: func(t *testing.T) func(*config.Config) {
		srv := testbucket.Start(t)
		bucket := testbucket.BucketName(t)
		srv.CreateBucket(t, bucket)
		return withBucket(srv, srv.Endpoint, bucket)
	},
}

// withBucket keeps the platform's files in bucket, reached at endpoint
// (the server's own, or a proxy's).
func withBucket(srv testbucket.Server, endpoint, bucket string) func(*config.Config) {
	return func(c *config.Config) {
		c.DataBucket = config.DataBucket{Endpoint: endpoint, Name: bucket, Region: "us-east-1", AccessKeyID: srv.AccessKey,
			SecretAccessKey: srv.SecretKey, PathStyle: "true", URLTTL: time.Minute}
	}
}

func forEachArtifactKind(t *testing.T, test func(t *testing.T, kind string, e *env)) {
	for kind, setting := range artifactKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			test(t, kind, newEnv(t, setting(t)))
		})
	}
}

// putArtifact stores content at the artifact path p, as a worker would.
func (e *env) putArtifact(p, content string) {
	e.t.Helper()
	if _, err := e.srv.Files.Artifacts.Put(context.Background(), p, strings.NewReader(content), int64(len(content))); err != nil {
		e.t.Fatal(err)
	}
}

func TestArtifactServing(t *testing.T) {
	t.Parallel()
	forEachArtifactKind(t, func(t *testing.T, kind string, e *env) {
		locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "pub", "priv"))["id"].(string)
		pub := e.insertItem(locID, "pub", "a.mp4")
		priv := e.insertItem(locID, "priv", "b.mp4")
		e.putArtifact("th/"+pub+"/thumb.png", "png bytes")
		e.putArtifact("th/"+priv+"/thumb.png", "private png")
		e.insertArtifact(pub, "th/"+pub+"/thumb.png")
		e.insertArtifact(priv, "th/"+priv+"/thumb.png")
		// A row whose file is missing, and a file without a row.
		e.insertArtifact(pub, "th/"+pub+"/missing.png")
		e.putArtifact("th/"+pub+"/norow.png", "no row")
		missing := []string{"th/" + pub + "/missing.png", "th/" + pub + "/norow.png", "nope.png"}
		dir := filepath.Join(e.cfg.DataDir, "artifacts")
		outside := filepath.Join(t.TempDir(), "secret.txt")
		if kind == blobstore.KindDirectory {
			// One whose file is a symlink out of the artifacts directory.
			writeFile(t, outside, "secret")
			if err := os.Symlink(outside, filepath.Join(dir, "th", pub, "link.png")); err != nil {
				t.Fatal(err)
			}
			e.insertArtifact(pub, "th/"+pub+"/link.png")
			missing = append(missing, "th/"+pub+"/link.png")
		}

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

		for _, p := range missing {
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
		if _, err := e.srv.Files.Artifacts.Stat(context.Background(), "th/"+pub+"/thumb.png"); !errors.Is(err, blobstore.ErrNotFound) {
			t.Fatalf("artifact file of a deleted item left: %v", err)
		}
		if _, err := e.srv.Files.Artifacts.Stat(context.Background(), "th/"+priv+"/thumb.png"); err != nil {
			t.Fatalf("another item's artifact went: %v", err)
		}
		if kind == blobstore.KindDirectory {
			if _, err := os.Stat(outside); err != nil {
				t.Fatal("removing artifacts followed a symlink out of the directory")
			}
		}
	})
}

// getArtifact sends GET /api/data/artifacts/<rest> with extra headers. A
// 206, 302 or 304 is checked against openapi.yaml here (validateResponse wants
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
	if res.Code != http.StatusPartialContent && res.Code != http.StatusNotModified && res.Code != http.StatusFound {
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
	forEachArtifactKind(t, func(t *testing.T, _ string, e *env) { artifactTypesRangesAndCaching(t, e) })
}

func artifactTypesRangesAndCaching(t *testing.T, e *env) {
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "media"))["id"].(string)
	item := e.insertItem(locID, "media", "clip.mp4")
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
		e.putArtifact(p, string(content))
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
	time.Sleep(10 * time.Millisecond)
	e.putArtifact(p, string(content[1:])+"x")
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
	e.putArtifact(frame, "jpeg bytes")
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

// While the artifact store's bucket is away, an artifact answers 502 with
// the JSON error body, quickly, and without naming the bucket; once it is
// back, the artifact is served again.
func TestArtifactStoreUnavailable(t *testing.T) {
	t.Parallel()
	srv := testbucket.Start(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	proxy, err := testbucket.NewProxy(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	e := newEnv(t, withBucket(srv, proxy.Endpoint, bucket))
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "media"))["id"].(string)
	item := e.insertItem(locID, "media", "clip.mp4")
	p := item + "/thumbnailer/thumb.jpg"
	e.putArtifact(p, "jpeg bytes")
	e.insertArtifact(item, p)
	e.getArtifact(p, e.adminToken, nil).status(200)

	var away atomic.Bool
	var refused atomic.Int64
	away.Store(true)
	proxy.Answer(func(w http.ResponseWriter, r *http.Request) bool {
		if !away.Load() {
			return false
		}
		// What a load balancer answers for a server that is down.
		refused.Add(1)
		w.WriteHeader(http.StatusBadGateway)
		return true
	})
	for _, h := range []map[string]string{nil, {"Range": "bytes=0-3"}, {"If-None-Match": `"x"`}} {
		r := e.getArtifact(p, e.adminToken, h).status(502)
		if r.errCode() != "file_store_unavailable" || strings.Contains(string(r.Body), bucket) || strings.Contains(string(r.Body), "127.0.0.1") {
			t.Fatalf("502 body %s", r.Body)
		}
		// Quickly: the store is asked once, not retried with backoff
		// (counted, not timed: a clock beside parallel tests says less).
		if n := refused.Swap(0); n != 1 {
			t.Errorf("%v: the store was asked %d times", h, n)
		}
	}
	// Visibility still goes first: a caller who may not see the item is
	// not told that the store is away.
	_, tok := e.userWithScopes("away@example.com", "search:read")
	e.getArtifact(p, tok, nil).status(403)
	away.Store(false)
	if r := e.getArtifact(p, e.adminToken, nil).status(200); string(r.Body) != "jpeg bytes" {
		t.Fatalf("after: %q", r.Body)
	}
}

// With DATA_BUCKET_BROWSER_ENDPOINT, an artifact request is answered with
// a redirect to a short-lived presigned URL of the bucket, which serves
// the file with its type; visibility is checked before.
func TestArtifactRedirectToPresignedURL(t *testing.T) {
	t.Parallel()
	srv := testbucket.Start(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	e := newEnv(t, withBucket(srv, srv.Endpoint, bucket), func(c *config.Config) { c.DataBucket.BrowserEndpoint = srv.Endpoint })
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "pub", "priv"))["id"].(string)
	item := e.insertItem(locID, "pub", "clip.mp4")
	priv := e.insertItem(locID, "priv", "b.mp4")
	p := item + "/video_previews/preview.mp4"
	e.putArtifact(p, "mp4 bytes")
	e.insertArtifact(item, p)
	e.putArtifact(priv+"/t.jpg", "private")
	e.insertArtifact(priv, priv+"/t.jpg")
	r := e.getArtifact(p, e.adminToken, nil).status(302)
	loc := r.Head.Get("Location")
	if !strings.HasPrefix(loc, srv.Endpoint+"/"+bucket+"/artifacts/") || !strings.Contains(loc, "X-Amz-Expires=60") ||
		r.Head.Get("Cache-Control") != "private, no-store" || strings.Contains(loc, srv.SecretKey) {
		t.Fatalf("redirect %q %v", loc, r.Head)
	}
	res, err := http.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != "mp4 bytes" || res.Header.Get("Content-Type") != "video/mp4" {
		t.Fatalf("presigned GET: %d %q %q", res.StatusCode, b, res.Header.Get("Content-Type"))
	}
	g := e.createGroup("Private")
	e.do("PUT", "/api/data/containers", e.adminToken, map[string]any{"id": e.containerOf(locID, "priv"), "location_id": locID,
		"enabled": false, "groups": []string{g}}).status(200)
	_, tok := e.userWithScopes("redirect@example.com", "items:read")
	if r := e.getArtifact(priv+"/t.jpg", tok, nil); r.Code != 403 || r.Head.Get("Location") != "" {
		t.Fatalf("invisible item: %d %v", r.Code, r.Head)
	}
	e.getArtifact(p, tok, nil).status(302)
}
