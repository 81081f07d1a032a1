package nsfw

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// nsfw_provider against a provider the tests start. The golden tests
// replay recorded answers (testdata/provider/*.json; the name's first word
// says which sample is sent: mov, three frames of the 5.6 s
// extractors/testdata/sample.mov; jpg, testdata/goexif-sample1.jpg) and pin
// what is kept: data and segments, refusals included. No sidecar is
// involved.

const (
	providerVideo = "../testdata/sample.mov"
	providerPhoto = "testdata/goexif-sample1.jpg"
)

type nsfwRequest struct {
	Path, Auth string
	Task       string `json:"task"`
	Input      struct {
		Media []struct {
			Type string   `json:"type"`
			Time *float64 `json:"time"`
			Data []byte   `json:"data"`
		} `json:"media"`
	} `json:"input"`
}

type nsfwProvider struct {
	mu       sync.Mutex
	requests []nsfwRequest
	reply    func(n int) (status int, body string)
}

func (f *nsfwProvider) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req nsfwRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			w.WriteHeader(400)
			return
		}
		req.Path, req.Auth = r.URL.Path, r.Header.Get("Authorization")
		f.mu.Lock()
		f.requests = append(f.requests, req)
		n := len(f.requests)
		f.mu.Unlock()
		status, body := f.reply(n)
		if status != 0 {
			w.WriteHeader(status)
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (f *nsfwProvider) all() []nsfwRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]nsfwRequest(nil), f.requests...)
}

func providerRegistry(t testing.TB, env map[string]string) *extractors.Registry {
	return extractortest.Registry(t, env, "store", "mime_type", ProviderName)
}

func nsfwEnv(url string) map[string]string {
	return map[string]string{"NSFW_API_URL": url, "NSFW_API_KEY": "nkey", "NSFW_API_FRAMES": "3"}
}

func runProvider(t testing.TB, reg *extractors.Registry, path string) extractors.Outcome {
	t.Helper()
	return extractortest.Run(t, reg, ProviderName, extractortest.Input(t, path))
}

func TestProviderGolden(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/provider", ".json", func(t *testing.T, name string, answer []byte) (any, error) {
		f := &nsfwProvider{reply: func(int) (int, string) { return 0, string(answer) }}
		url := f.start(t)
		sample := map[string]string{"mov": providerVideo, "jpg": providerPhoto}[strings.SplitN(name, "-", 2)[0]]
		o := runProvider(t, providerRegistry(t, nsfwEnv(url)), sample)
		reqs := f.all()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		r := reqs[0]
		if r.Path != "/nsfw" || r.Task != "nsfw" || r.Auth != "Bearer nkey" {
			t.Errorf("request %s %q %q", r.Path, r.Task, r.Auth)
		}
		want := []float64{0.933, 2.8, 4.666}
		if sample == providerPhoto {
			want = []float64{-1}
		}
		if len(r.Input.Media) != len(want) {
			t.Fatalf("%d pictures", len(r.Input.Media))
		}
		for i, m := range r.Input.Media {
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(m.Data))
			if m.Type != "image/jpeg" || err != nil || max(cfg.Width, cfg.Height) > provider.FrameSide ||
				(want[i] < 0) != (m.Time == nil) || (m.Time != nil && (*m.Time < want[i]-0.001 || *m.Time > want[i]+0.001)) {
				t.Errorf("picture %d: %s %v %dx%d at %v", i, m.Type, err, cfg.Width, cfg.Height, m.Time)
			}
		}
		if o.Err != nil {
			return nil, o.Err
		}
		var data map[string]any
		json.Unmarshal(bytes.ReplaceAll(o.JSON, []byte(strings.TrimPrefix(url, "http://")), []byte("provider.test")), &data)
		for i := range o.Segments {
			if n := o.Segments[i].Summary.NSFW; n != nil && n.Source == strings.TrimPrefix(url, "http://") {
				n.Source = "provider.test"
			}
		}
		return map[string]any{"data": data, "segments": o.Segments}, nil
	})
}

func TestProviderRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		reply     func(n int) (int, string)
		calls     int
		transient bool
		want      string
	}{
		{"key refused", func(int) (int, string) { return 401, `{"error":{"code":"denied","message":"no such key"}}` }, 1, false, "(key refused): denied: no such key"},
		{"busy then answers", func(n int) (int, string) {
			if n == 1 {
				return 429, ""
			}
			return 0, `{"results":[{"nsfw_score":0.1}]}`
		}, 2, false, ""},
		{"down", func(int) (int, string) { return 500, `{"error":"oops"}` }, provider.DefaultAttempts, true, "status 500: oops"},
		{"oversized", func(int) (int, string) { return 0, `{"results":[],"x":"` + strings.Repeat("a", 1<<20) + `"}` }, 1, false, "answer over"},
		{"not JSON", func(int) (int, string) { return 0, `<html>ok</html>` }, 1, false, "malformed answer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &nsfwProvider{reply: c.reply}
			o := runProvider(t, providerRegistry(t, nsfwEnv(f.start(t))), providerPhoto)
			switch {
			case len(f.all()) != c.calls:
				t.Errorf("%d calls, want %d", len(f.all()), c.calls)
			case c.want == "" && o.Err != nil:
				t.Errorf("err %v", o.Err)
			case c.want != "" && (o.Err == nil || extractors.IsTransient(o.Err) != c.transient || !strings.Contains(o.Err.Error(), c.want)):
				t.Errorf("err %v, want %q (transient %v)", o.Err, c.want, c.transient)
			}
		})
	}
}

func TestProviderUnavailable(t *testing.T) {
	t.Parallel()
	f := &nsfwProvider{reply: func(int) (int, string) { return 0, `{}` }}
	url := f.start(t)
	bad := nsfwEnv(url)
	bad["NSFW_THRESHOLD"] = "2"
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "not available: adult-content provider setting NSFW_API_URL, NSFW_API_KEY not set"},
		{map[string]string{"NSFW_API_URL": url}, "not available: adult-content provider setting NSFW_API_KEY not set"},
		{map[string]string{"NSFW_API_KEY": "k", "NSFW_SIDECAR_DIR": sidecarDir}, "not available: adult-content provider setting NSFW_API_URL not set"},
		{bad, `setting NSFW_THRESHOLD = "2": want a number above 0, at most 1`},
	} {
		o := runProvider(t, providerRegistry(t, c.env), providerPhoto)
		if !errors.Is(o.Err, extractors.ErrUnavailable) || !strings.HasPrefix(o.Err.Error(), "not available: ") || !strings.Contains(o.Err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.env, o.Err, c.want)
		}
	}
	if n := len(f.all()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestProviderSuite(t *testing.T) {
	t.Parallel()
	f := &nsfwProvider{}
	f.reply = func(n int) (int, string) {
		r := f.all()[n-1]
		var results []string
		for range r.Input.Media {
			results = append(results, `{"nsfw_score":0.2,"categories":{"neutral":0.8,"sexy":0.2}}`)
		}
		return 0, `{"results":[` + strings.Join(results, ",") + `]}`
	}
	samples := []string{providerPhoto, "testdata/video-001.png", "testdata/video-001.tiff", providerVideo}
	res := extractortest.Suite(t, providerRegistry(t, nsfwEnv(f.start(t))), samples)
	for name, o := range res[ProviderName] {
		if o.Err != nil {
			t.Errorf("%s: %v", name, o.Err)
		}
	}
	if o := res[ProviderName][filepath.Base(providerVideo)]; len(o.Segments) != 3 || o.Segments[0].Summary.NSFW.Categories["neutral"] != 0.8 {
		t.Errorf("video segments %+v", o.Segments)
	}
}
