package recognition

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// The picture analyses (tags, logos) against a provider the tests start.
// Their golden tests replay recorded answers (testdata/<task>/*.json, the
// name's first word saying which sample was sent: mov, jpg) and pin what
// the extractor keeps of each, refusals included.

// Real sample files (extractors/testdata/README.md): a 5.6 s 560x320
// video, a 500x375 photo.
const (
	sampleVideo = "../testdata/sample.mov"
	samplePhoto = "../testdata/exif.jpg"
)

// scripted is a provider whose every answer the test writes: reply gets
// the request and its number (1 for the first).
type scripted struct {
	mu       sync.Mutex
	requests []request
	headers  []http.Header
	reply    func(n int, r request) (status int, header map[string]string, body string)
}

func (f *scripted) start(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req request
		if err := json.Unmarshal(raw, &req); err != nil {
			w.WriteHeader(400)
			return
		}
		req.Path, req.Auth = r.URL.Path, r.Header.Get("Authorization")
		f.mu.Lock()
		f.requests = append(f.requests, req)
		f.headers = append(f.headers, r.Header.Clone())
		n, reply := len(f.requests), f.reply
		f.mu.Unlock()
		status, header, body := reply(n, req)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		if status != 0 {
			w.WriteHeader(status)
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (f *scripted) all() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.requests...)
}

// answering replies body to every request.
func answering(body string) *scripted {
	return &scripted{reply: func(int, request) (int, map[string]string, string) { return 0, nil, body }}
}

func pictureEnv(url string) map[string]string {
	return map[string]string{
		"RECOGNITION_API_URL": url, "RECOGNITION_API_KEY": "rkey", "RECOGNITION_FRAMES": "3",
		"LOGO_PROVIDER_URL": url, "LOGO_PROVIDER_KEY": "lkey", "LOGO_FRAMES": "3",
	}
}

func pictureRegistry(t testing.TB, env map[string]string) *extractors.Registry {
	return extractortest.Registry(t, env, "store", "mime_type", "tags", "logos")
}

// outcome is what the golden files hold of a run: its data and segments,
// the test server's address (a source when the answer names none) written
// as provider.test.
func outcome(o extractors.Outcome, srv *httptest.Server) (any, error) {
	if o.Err != nil {
		return nil, o.Err
	}
	b, err := json.Marshal(map[string]any{"data": json.RawMessage(o.JSON), "segments": o.Segments})
	if err != nil {
		return nil, err
	}
	b = bytes.ReplaceAll(b, []byte(strings.TrimPrefix(srv.URL, "http://")), []byte("provider.test"))
	var v any
	return v, json.Unmarshal(b, &v)
}

// golden replays each answer of testdata/<task> to the extractor name run
// on the sample its file name starts with, and checks the request.
func golden(t *testing.T, name, task, key string) {
	extractortest.Golden(t, filepath.Join("testdata", task), ".json", func(t *testing.T, file string, answer []byte) (any, error) {
		f := &scripted{reply: func(int, request) (int, map[string]string, string) { return 0, nil, string(answer) }}
		srv := f.start(t)
		sample := map[string]string{"mov": sampleVideo, "jpg": samplePhoto}[strings.SplitN(file, "-", 2)[0]]
		if sample == "" {
			t.Fatalf("%s: name it mov-... or jpg-...", file)
		}
		o := run(t, pictureRegistry(t, pictureEnv(srv.URL)), name, sample, nil, "")
		reqs := f.all()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		checkPictureRequest(t, reqs[0], f.headers[0], task, key, sample == sampleVideo)
		return outcome(o, srv)
	})
}

// checkPictureRequest checks the contract of a picture request: the task's
// path and name, the key in the header only, JPEG pictures of at most 640
// pixels and 2 MiB, frame times for a video (three of the 5.6 s sample,
// at the middles of its thirds) and none for a picture.
func checkPictureRequest(t *testing.T, req request, h http.Header, task, key string, video bool) {
	t.Helper()
	if req.Path != "/"+task || req.Task != task || req.Auth != "Bearer "+key || h.Get("Content-Type") != "application/json" {
		t.Errorf("request %s task %q auth %q type %q", req.Path, req.Task, req.Auth, h.Get("Content-Type"))
	}
	want := []float64{0.933, 2.8, 4.666}
	if !video {
		want = nil
	}
	if len(req.Input.Media) != max(len(want), 1) {
		t.Fatalf("%d pictures sent", len(req.Input.Media))
	}
	for i, m := range req.Input.Media {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(m.Data))
		if m.Type != "image/jpeg" || err != nil || max(cfg.Width, cfg.Height) > provider.FrameSide || len(m.Data) > provider.MaxFrameBytes {
			t.Errorf("picture %d: %s %v %dx%d, %d bytes", i, m.Type, err, cfg.Width, cfg.Height, len(m.Data))
		}
		switch {
		case !video && (m.Time != nil || cfg.Width != 500 || cfg.Height != 375):
			t.Errorf("picture item sent at %v, %dx%d", m.Time, cfg.Width, cfg.Height)
		case video && (m.Time == nil || *m.Time < want[i]-0.001 || *m.Time > want[i]+0.001 || cfg.Width != 560):
			t.Errorf("frame %d at %v, %dx%d", i, m.Time, cfg.Width, cfg.Height)
		}
	}
	for k := range h {
		if k != "Authorization" && strings.Contains(strings.Join(h.Values(k), " "), key) {
			t.Errorf("the key is in header %s", k)
		}
	}
}

func TestTagsGolden(t *testing.T) {
	t.Parallel()
	golden(t, "tags", "recognition", "rkey")
}

func TestLogosGolden(t *testing.T) {
	t.Parallel()
	golden(t, "logos", "logos", "lkey")
}

// The answers of a provider that refuses, is busy, or answers too much, and
// the setting that is not set: each ends as the contract says.
func TestPictureAnalysesRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, task, answer string }{
		{"tags", "recognition", `{"labels":[{"name":"cat","confidence":0.5}]}`},
		{"logos", "logos", `{"logos":[{"name":"Acme","confidence":0.5}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// 401: the key refused, deterministic, asked once.
			f := &scripted{reply: func(int, request) (int, map[string]string, string) {
				return 401, nil, `{"error":{"code":"unauthorized","message":"bad key"}}`
			}}
			o := run(t, pictureRegistry(t, pictureEnv(f.start(t).URL)), c.name, samplePhoto, nil, "")
			if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), "key refused") || len(f.all()) != 1 {
				t.Errorf("401: %v after %d calls", o.Err, len(f.all()))
			}
			// 429 then an answer: retried after the pause asked for.
			f = &scripted{reply: func(n int, _ request) (int, map[string]string, string) {
				if n == 1 {
					return 429, map[string]string{"Retry-After": "1"}, ""
				}
				return 0, nil, c.answer
			}}
			o = run(t, pictureRegistry(t, pictureEnv(f.start(t).URL)), c.name, samplePhoto, nil, "")
			if o.Err != nil || len(f.all()) != 2 {
				t.Errorf("429 then 200: %v after %d calls", o.Err, len(f.all()))
			}
			// 5xx every time: transient after the tries (the harvest retries later).
			f = &scripted{reply: func(int, request) (int, map[string]string, string) { return 503, nil, "" }}
			o = run(t, pictureRegistry(t, pictureEnv(f.start(t).URL)), c.name, samplePhoto, nil, "")
			if !extractors.IsTransient(o.Err) || len(f.all()) != provider.DefaultAttempts {
				t.Errorf("503: %v after %d calls", o.Err, len(f.all()))
			}
			// Over 1 MiB: refused, not retried.
			f = answering(`{"labels":[],"logos":[],"x":"` + strings.Repeat("a", 1<<20) + `"}`)
			o = run(t, pictureRegistry(t, pictureEnv(f.start(t).URL)), c.name, samplePhoto, nil, "")
			if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), "answer over") || len(f.all()) != 1 {
				t.Errorf("oversized: %v after %d calls", o.Err, len(f.all()))
			}
			// Not a picture the analysis can send: refused before any call.
			f = answering(c.answer)
			dir := t.TempDir()
			bad := filepath.Join(dir, "broken.jpg")
			os.WriteFile(bad, []byte("\xff\xd8\xff\xe0 not a jpeg"), 0o644)
			o = run(t, pictureRegistry(t, pictureEnv(f.start(t).URL)), c.name, bad, nil, "")
			if o.Err == nil || extractors.IsTransient(o.Err) || len(f.all()) != 0 {
				t.Errorf("broken picture: %v after %d calls", o.Err, len(f.all()))
			}
		})
	}
}

// Without both settings the analyses are listed as not available, and a
// harvest never reaches a provider.
func TestPictureAnalysesUnavailableWithoutKeys(t *testing.T) {
	t.Parallel()
	f := answering(`{}`)
	url := f.start(t).URL
	for _, c := range []struct {
		name, reason string
		env          map[string]string
	}{
		{"tags", "recognition provider setting RECOGNITION_API_URL, RECOGNITION_API_KEY not set", nil},
		{"tags", "recognition provider setting RECOGNITION_API_KEY not set", map[string]string{"RECOGNITION_API_URL": url}},
		{"tags", "recognition provider setting RECOGNITION_API_URL not set", map[string]string{"RECOGNITION_API_KEY": "k"}},
		{"logos", "logo provider setting LOGO_PROVIDER_URL, LOGO_PROVIDER_KEY not set", nil},
		{"logos", "logo provider setting LOGO_PROVIDER_KEY not set", map[string]string{"LOGO_PROVIDER_URL": url}},
	} {
		reg := pictureRegistry(t, c.env)
		if ok, why := reg.Available(c.name); ok || why != c.reason {
			t.Errorf("%s with %v: %v %q", c.name, c.env, ok, why)
		}
		o := run(t, reg, c.name, samplePhoto, nil, "")
		if !errors.Is(o.Err, extractors.ErrUnavailable) || o.Err.Error() != "not available: "+c.reason {
			t.Errorf("%s with %v ran: %v", c.name, c.env, o.Err)
		}
	}
	if n := len(f.all()); n != 0 {
		t.Errorf("the provider got %d requests", n)
	}
	// A frames setting out of bounds makes them unavailable with its reason.
	bad := pictureEnv(url)
	bad["RECOGNITION_FRAMES"], bad["LOGO_MAX_PIXELS"] = "1000", "many"
	reg := pictureRegistry(t, bad)
	for name, want := range map[string]string{"tags": "RECOGNITION_FRAMES", "logos": "LOGO_MAX_PIXELS"} {
		if o := run(t, reg, name, samplePhoto, nil, ""); !errors.Is(o.Err, extractors.ErrUnavailable) || !strings.Contains(o.Err.Error(), want) {
			t.Errorf("%s: %v", name, o.Err)
		}
	}
}

// A video whose video_main_frames ran sends those frames, evenly picked.
func TestTagsUseMainFrames(t *testing.T) {
	t.Parallel()
	f := answering(`{"labels":[{"name":"golf","confidence":0.8,"time":2}]}`)
	reg := pictureRegistry(t, pictureEnv(f.start(t).URL))
	artifacts := t.TempDir()
	dir := filepath.Join(artifacts, "video_main_frames")
	os.MkdirAll(dir, 0o755)
	jpg, err := os.ReadFile(samplePhoto)
	if err != nil {
		t.Fatal(err)
	}
	prior := map[string]json.RawMessage{"video_main_frames": json.RawMessage(`{"frames":[
		{"time":0,"path":"f0.jpg"},{"time":1,"path":"f1.jpg"},{"time":2,"path":"f2.jpg"},
		{"time":3,"path":"f3.jpg"},{"time":4,"path":"f4.jpg"},{"time":5,"path":"f5.jpg"}]}`)}
	for i := range 6 {
		os.WriteFile(filepath.Join(dir, "f"+string(rune('0'+i))+".jpg"), jpg, 0o644)
	}
	o := run(t, reg, "tags", sampleVideo, prior, artifacts)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	req := f.all()[0]
	if len(req.Input.Media) != 3 || *req.Input.Media[1].Time != 2 || !bytes.Equal(req.Input.Media[1].Data, jpg) {
		t.Errorf("media %d", len(req.Input.Media))
	}
	if o.Data["frames_source"] != "video_main_frames" || len(o.Segments) != 1 || o.Segments[0].Time != 2 {
		t.Errorf("%s %+v", o.JSON, o.Segments)
	}
}

func TestPictureAnalysesSuite(t *testing.T) {
	t.Parallel()
	f := &scripted{reply: func(_ int, r request) (int, map[string]string, string) {
		return 0, nil, `{"labels":[{"name":"x","confidence":0.5,"time":0.5}],"people":[{"name":"Ada"}],
			"logos":[{"name":"Acme","time":0.5,"box":{"left":0.1,"top":0.1,"width":0.2,"height":0.1}}]}`
	}}
	extractortest.Suite(t, pictureRegistry(t, pictureEnv(f.start(t).URL)), []string{sampleVideo, samplePhoto, "../testdata/video-001.png"})
}
