package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/testbucket"
)

// fakeProvider is a logo provider the test runs: it records the trainings
// it is sent and answers completion as the test says.
type fakeProvider struct {
	t        *testing.T
	key      string
	mu       sync.Mutex
	received []map[string]any
	complete map[string]bool
	checks   int
	fail     bool
}

func (p *fakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+p.key {
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	if p.fail {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/trainings":
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		p.received = append(p.received, body)
		json.NewEncoder(w).Encode(map[string]any{"id": "prov-" + body["name"].(string)})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/trainings/"):
		p.checks++
		id := strings.TrimPrefix(r.URL.Path, "/v1/trainings/")
		json.NewEncoder(w).Encode(map[string]any{"id": id, "complete": p.complete[id]})
	default:
		http.NotFound(w, r)
	}
}

func pictureBytes(t *testing.T, format string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		img.Set(x, x/2, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, nil)
	case "gif":
		err = gif.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type formFile struct {
	field, name string
	data        []byte
}

func multipartBody(t *testing.T, values map[string]string, files []formFile) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range values {
		w.WriteField(k, v)
	}
	for _, f := range files {
		fw, err := w.CreateFormFile(f.field, f.name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(f.data)
	}
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// logoEnv is an env with a logo provider the test runs and a bucket on a
// real S3 server.
func logoEnv(t *testing.T, tweak ...func(*config.Config)) (*collabEnv, *fakeProvider, testbucket.Server, string) {
	srv := testbucket.Start(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	prov := &fakeProvider{t: t, key: "provider-key-1", complete: map[string]bool{}}
	ps := httptest.NewServer(prov)
	t.Cleanup(ps.Close)
	se := newCollabEnvWith(t, func(c *config.Config) {
		c.LogoProviderKey = prov.key
		c.LogoProviderURL = ps.URL + "/v1"
		c.LogoBucket = config.LogoBucket{Endpoint: srv.Endpoint, Region: "us-east-1", Name: bucket,
			AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, PathStyle: "true"}
		for _, f := range tweak {
			f(c)
		}
	})
	return se, prov, srv, bucket
}

func TestLogoTrainingNotConfigured(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if r := e.do("OPTIONS", "/api/data/train/logos", e.adminToken, nil).status(200).json(); r["can_train_logos"] != false {
		t.Fatalf("options %v", r)
	}
	body, ct := multipartBody(t, map[string]string{"name": "Acme"}, []formFile{{"logos", "a.png", pictureBytes(t, "png")}})
	if r := e.doRaw("POST", "/api/data/train/logos", e.adminToken, body, ct); r.Code != 503 || r.errCode() != "not_configured" {
		t.Fatalf("create without provider: %d %s", r.Code, r.Body)
	}
	e.do("GET", "/api/data/train/logos", e.adminToken, nil).status(200)
}

func TestLogoTraining(t *testing.T) {
	t.Parallel()
	e, prov, srv, bucket := logoEnv(t)
	if r := e.do("OPTIONS", "/api/data/train/logos", e.other, nil).status(200).json(); r["can_train_logos"] != true {
		t.Fatalf("options %v", r)
	}
	pngLogo, jpegLogo := pictureBytes(t, "png"), pictureBytes(t, "jpeg")
	body, ct := multipartBody(t, map[string]string{"name": "Acme", "website": "https://acme.example"},
		[]formFile{{"logos", "front.png", pngLogo}, {"logos", "side.jpg", jpegLogo}})
	var created struct {
		ID               string  `json:"logo_training_request_id"`
		Name             string  `json:"name"`
		Website          string  `json:"website"`
		TrainingComplete bool    `json:"training_complete"`
		LastChecked      *string `json:"last_checked_for_completion_at"`
		RequestedBy      struct {
			ID, Email string
		} `json:"requested_by"`
		LogoImages []struct {
			ID        string `json:"logo_training_image_id"`
			PublicURL string `json:"public_url"`
			FilePath  string `json:"file_path"`
		} `json:"logo_images"`
	}
	e.doRaw("POST", "/api/data/train/logos", e.other, body, ct).status(201).decode(&created)
	if created.ID == "" || created.Name != "Acme" || created.Website != "https://acme.example" || created.TrainingComplete ||
		created.LastChecked != nil || created.RequestedBy.Email != "other@example.com" || len(created.LogoImages) != 2 {
		t.Fatalf("created %+v", created)
	}
	// The logos are in the bucket, byte for byte, where their URLs say.
	for i, want := range [][]byte{pngLogo, jpegLogo} {
		im := created.LogoImages[i]
		if !strings.HasPrefix(im.PublicURL, srv.Endpoint+"/"+bucket+"/logo-training/"+created.ID+"/") ||
			!strings.HasSuffix(im.PublicURL, im.FilePath[strings.LastIndex(im.FilePath, "/"):]) {
			t.Fatalf("image %+v", im)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		obj, err := srv.Client(t).GetObject(ctx, bucket, im.FilePath, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(obj)
		obj.Close()
		cancel()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("stored logo %d: %d bytes, %v", i, len(got), err)
		}
	}
	// The provider got the training with the images' URLs.
	prov.mu.Lock()
	if len(prov.received) != 1 || prov.received[0]["name"] != "Acme" || prov.received[0]["website"] != "https://acme.example" ||
		len(prov.received[0]["images"].([]any)) != 2 || prov.received[0]["images"].([]any)[0] != created.LogoImages[0].PublicURL {
		t.Fatalf("provider received %v", prov.received)
	}
	prov.mu.Unlock()
	if e.auditCount("logotraining", "create", created.ID) != 1 {
		t.Fatal("create not audited")
	}
	// requested_by is the author summary every resource gives.
	by := e.do("GET", "/api/data/train/logos/"+created.ID, e.other, nil).status(200).json()["requested_by"].(map[string]any)
	if by["id"] != created.RequestedBy.ID || by["user_id"] != by["id"] || by["avatar"] != "" || by["enabled"] != true {
		t.Fatalf("requested_by %v", by)
	}

	// List and detail; another non-admin user does not see it.
	list := e.do("GET", "/api/data/train/logos", e.other, nil).status(200).json()["logo_training_requests"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["logo_training_request_id"] != created.ID {
		t.Fatalf("list %v", list)
	}
	if _, has := list[0].(map[string]any)["logo_images"]; has {
		t.Fatal("list entries carry images")
	}
	e.do("GET", "/api/data/train/logos/"+created.ID, e.other, nil).status(200)
	e.do("GET", "/api/data/train/logos/"+created.ID, e.adminToken, nil).status(200)
	_, third := e.userWithScopes("third@example.com", "logos:read", "logos:write")
	if l := e.do("GET", "/api/data/train/logos", third, nil).status(200).json()["logo_training_requests"].([]any); len(l) != 0 {
		t.Fatalf("third user's list %v", l)
	}
	e.do("GET", "/api/data/train/logos/"+created.ID, third, nil).status(404)
	e.do("GET", "/api/data/train/logos/"+created.ID+"/status", third, nil).status(404)
	e.do("GET", "/api/data/train/logos/nope", e.other, nil).status(404)

	// Status: asks the provider, records the check; completion sticks.
	st := e.do("GET", "/api/data/train/logos/"+created.ID+"/status", e.other, nil).status(200).json()
	if st["training_complete"] != false || st["last_checked_for_completion_at"] == nil {
		t.Fatalf("status %v", st)
	}
	// A check that finds the training running changed the request: audited.
	if n := e.count(`SELECT count(*) FROM audit_events WHERE target_kind = 'logotraining' AND action_key = 'check'
		AND target_id = ? AND user_id = ?`, created.ID, e.otherID); n != 1 {
		t.Fatalf("%d check audit events, want 1", n)
	}
	prov.mu.Lock()
	prov.complete["prov-Acme"] = true
	prov.mu.Unlock()
	st = e.do("GET", "/api/data/train/logos/"+created.ID+"/status", e.other, nil).status(200).json()
	if st["training_complete"] != true {
		t.Fatalf("status after completion %v", st)
	}
	detail := e.do("GET", "/api/data/train/logos/"+created.ID, e.other, nil).status(200).json()
	if detail["training_complete"] != true || detail["last_checked_for_completion_at"] != st["last_checked_for_completion_at"] {
		t.Fatalf("detail after completion %v (status %v)", detail, st)
	}
	e.do("GET", "/api/data/train/logos/"+created.ID+"/status", e.other, nil).status(200)
	prov.mu.Lock()
	if prov.checks != 2 {
		t.Fatalf("provider asked %d times, want 2 (not again once complete)", prov.checks)
	}
	prov.mu.Unlock()
	if e.auditCount("logotraining", "complete", created.ID) != 1 || e.auditCount("logotraining", "check", created.ID) != 1 {
		t.Fatal("completion not audited once, or a check of a complete training audited")
	}

	// Logos are checked by content, names and websites by shape.
	for _, tc := range []struct {
		values map[string]string
		files  []formFile
		field  string
	}{
		{map[string]string{"name": "A"}, nil, "logos"},
		{map[string]string{"name": "A"}, []formFile{{"logos", "fake.png", []byte("not a picture at all")}}, "logos"},
		{map[string]string{"name": "A"}, []formFile{{"logos", "anim.png", pictureBytes(t, "gif")}}, "logos"},
		{map[string]string{}, []formFile{{"logos", "a.png", pngLogo}}, "name"},
		{map[string]string{"name": strings.Repeat("n", 256)}, []formFile{{"logos", "a.png", pngLogo}}, "name"},
		{map[string]string{"name": "A", "website": "javascript:alert(1)"}, []formFile{{"logos", "a.png", pngLogo}}, "website"},
	} {
		body, ct := multipartBody(t, tc.values, tc.files)
		if r := e.doRaw("POST", "/api/data/train/logos", e.other, body, ct); r.Code != 400 || r.field(tc.field) == "" {
			t.Errorf("%v %d files: %d %s", tc.values, len(tc.files), r.Code, r.Body)
		}
	}
	e.do("POST", "/api/data/train/logos", e.other, map[string]any{"name": "json"}).status(400)

	// A provider that fails: 502, nothing recorded, the logos removed.
	prov.mu.Lock()
	prov.fail = true
	prov.mu.Unlock()
	body, ct = multipartBody(t, map[string]string{"name": "Down"}, []formFile{{"logos", "a.png", pngLogo}})
	if r := e.doRaw("POST", "/api/data/train/logos", e.other, body, ct); r.Code != 502 || r.errCode() != "provider_error" {
		t.Fatalf("failing provider: %d %s", r.Code, r.Body)
	}
	if n := e.count(`SELECT count(*) FROM logo_training_requests`); n != 1 {
		t.Fatalf("%d requests recorded", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	objects := 0
	for obj := range srv.Client(t).ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		objects++
	}
	if objects != 2 {
		t.Fatalf("%d objects in the bucket, want the first request's 2", objects)
	}
}

// Hostile training forms on a deployment that can train: each is a 4xx
// with a JSON error naming what is wrong, never a 5xx, and none reaches
// the provider, the bucket or the database.
func TestLogoTrainingHostileForms(t *testing.T) {
	t.Parallel()
	const bodyLimit = 4 << 20
	e, prov, srv, bucket := logoEnv(t, func(c *config.Config) { c.MaxBodyBytes = bodyLimit })
	png := pictureBytes(t, "png")
	logos := func(n int) []formFile {
		out := make([]formFile, n)
		for i := range out {
			out[i] = formFile{"logos", fmt.Sprintf("l%d.png", i), png}
		}
		return out
	}
	huge := strings.Repeat("w", 2<<20)
	for _, tc := range []struct {
		what   string
		values map[string]string
		files  []formFile
		status int
		field  string // a field the 400 names
	}{
		{"a body over MAX_BODY_BYTES", map[string]string{"name": "A"}, []formFile{{"logos", "big.png", bytes.Repeat([]byte{0x89}, bodyLimit+1)}}, 413, ""},
		{"more logos than allowed", map[string]string{"name": "A"}, logos(21), 400, "logos"},
		{"a 2 MB name", map[string]string{"name": huge}, logos(1), 400, "name"},
		{"a 2 MB website", map[string]string{"name": "A", "website": "https://" + huge}, logos(1), 400, "website"},
		{"a 2 MB name and a long website", map[string]string{"name": huge, "website": "https://" + huge[:3000]}, logos(1), 400, "website"},
		{"a text file as a logo", map[string]string{"name": "A"}, []formFile{{"logos", "logo.png", []byte("<svg onload=alert(1)>")}}, 400, "logos"},
		{"an empty logo", map[string]string{"name": "A"}, []formFile{{"logos", "logo.png", nil}}, 400, "logos"},
		{"a PNG header without a picture", map[string]string{"name": "A"}, []formFile{{"logos", "cut.png", png[:30]}}, 400, "logos"},
		{"a good logo after a bad one", map[string]string{"name": "A"}, []formFile{{"logos", "x.png", []byte("GIF89a")}, {"logos", "a.png", png}}, 400, "logos"},
		{"logos under another name", map[string]string{"name": "A"}, []formFile{{"logo", "a.png", png}}, 400, "logos"},
	} {
		body, ct := multipartBody(t, tc.values, tc.files)
		r := e.doRaw("POST", "/api/data/train/logos", e.other, body, ct)
		if r.Code != tc.status || r.errCode() == "" {
			t.Errorf("%s: %d %.300s", tc.what, r.Code, r.Body)
			continue
		}
		if tc.field != "" && r.field(tc.field) == "" {
			t.Errorf("%s: 400 without fields.%s: %.300s", tc.what, tc.field, r.Body)
		}
	}
	// Bodies that are not a form of the route.
	for _, tc := range []struct {
		what, contentType string
		body              []byte
	}{
		{"a truncated form", "multipart/form-data; boundary=b", []byte("--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nA")},
		{"a form without a boundary", "multipart/form-data", []byte("--b\r\n")},
		{"a form of 5000 parts", "", nil},
		{"an urlencoded form", "application/x-www-form-urlencoded", []byte("name=A&logos=x")},
		{"raw bytes", "image/png", png},
	} {
		body, ct := tc.body, tc.contentType
		if body == nil {
			values := map[string]string{"name": "A"}
			for i := range 5000 {
				values[fmt.Sprintf("f%d", i)] = "v"
			}
			body, ct = multipartBody(t, values, logos(1))
		}
		if r := e.doRaw("POST", "/api/data/train/logos", e.other, body, ct); r.Code != 400 || r.errCode() == "" {
			t.Errorf("%s: %d %.300s", tc.what, r.Code, r.Body)
		}
	}
	prov.mu.Lock()
	if len(prov.received) != 0 {
		t.Errorf("the provider received %d trainings", len(prov.received))
	}
	prov.mu.Unlock()
	if n := e.count(`SELECT count(*) FROM logo_training_requests`); n != 0 {
		t.Errorf("%d requests recorded", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for obj := range srv.Client(t).ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		t.Errorf("object %s (%v) in the bucket", obj.Key, obj.Err)
	}
	// At the limits: 20 logos and a 255-character name are trained.
	body, ct := multipartBody(t, map[string]string{"name": strings.Repeat("n", 255)}, logos(20))
	e.doRaw("POST", "/api/data/train/logos", e.other, body, ct).status(201)
}
