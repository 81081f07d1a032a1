package provider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// fake is a provider the test controls: handle answers each request.
func fake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body map[string]any)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &body)
		handle(w, r, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func client(t *testing.T, url string, mod ...func(*Config)) *Client {
	t.Helper()
	// The time-out only catches a hang: an attempt that sends megabytes
	// (TestCallMedia) may take seconds on a loaded machine, and a try that
	// times out is retried, which would change what the test sees.
	cfg := Config{URL: url, Key: "s3cret-key", Backoff: time.Millisecond, Timeout: time.Minute}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCallSendsTheContract(t *testing.T) {
	t.Parallel()
	srv := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		switch {
		case r.Method != http.MethodPost, r.URL.Path != "/v1/weather",
			r.Header.Get("Authorization") != "Bearer s3cret-key",
			r.Header.Get("Content-Type") != "application/json",
			body["task"] != "weather":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"bad request shape"}`)
			return
		}
		in, _ := body["input"].(map[string]any)
		json.NewEncoder(w).Encode(map[string]any{"temperature_c": in["latitude"], "extra": true})
	})
	var out struct {
		T float64 `json:"temperature_c"`
	}
	if err := client(t, srv.URL+"/v1/").Call(context.Background(), "weather", map[string]any{"latitude": 12.5}, &out); err != nil || out.T != 12.5 {
		t.Fatalf("%v %+v", err, out)
	}
}

func TestRetriesThenTransient(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"code":"busy","message":"try later"}}`)
	})
	err := client(t, srv.URL).Call(context.Background(), "sports", nil, &struct{}{})
	if !extractors.IsTransient(err) || calls.Load() != DefaultAttempts || !strings.Contains(err.Error(), "busy: try later") {
		t.Errorf("err %v after %d calls", err, calls.Load())
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the key leaked: %v", err)
	}
}

func TestRetrySucceeds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		if calls.Add(1) < 3 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, `{"labels":[{"name":"music","confidence":0.9}]}`)
	})
	var out Labels
	if err := client(t, srv.URL).Call(context.Background(), "audio_classification", nil, &out); err != nil || len(out.Labels) != 1 {
		t.Errorf("%v %+v", err, out)
	}
}

func TestDeterministicRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		handle func(w http.ResponseWriter)
		want   string
	}{
		{"key refused", func(w http.ResponseWriter) { w.WriteHeader(401) }, "key refused"},
		{"bad input", func(w http.ResponseWriter) { w.WriteHeader(422); io.WriteString(w, `{"error":"no audio"}`) }, "no audio"},
		{"malformed", func(w http.ResponseWriter) { io.WriteString(w, `{"labels":[`) }, "malformed answer"},
		{"oversized", func(w http.ResponseWriter) { io.WriteString(w, `{"x":"`+strings.Repeat("a", 2<<20)+`"}`) }, "answer over"},
		{"html error page", func(w http.ResponseWriter) { w.WriteHeader(404); io.WriteString(w, "<html>nope</html>") }, "status 404"},
	}
	for _, c := range cases {
		var calls atomic.Int32
		srv := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) { calls.Add(1); c.handle(w) })
		err := client(t, srv.URL).Call(context.Background(), "weather", nil, &map[string]any{})
		if err == nil || extractors.IsTransient(err) || !strings.Contains(err.Error(), c.want) || calls.Load() != 1 {
			t.Errorf("%s: %v after %d calls, want a deterministic %q", c.name, err, calls.Load(), c.want)
		}
	}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	other := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		t.Errorf("the other host was reached, with %q", r.Header.Get("Authorization"))
	})
	srv := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/weather", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/final", http.StatusPermanentRedirect)
		case "/final":
			if body["task"] != "moved" { // the body is sent again
				w.WriteHeader(400)
				return
			}
			io.WriteString(w, `{"ok":true}`)
		}
	})
	// 127.0.0.1 and localhost are different hosts to the check.
	err := client(t, srv.URL).Call(context.Background(), "away", nil, &map[string]any{})
	if err == nil || extractors.IsTransient(err) || !strings.Contains(err.Error(), "another host") {
		t.Errorf("redirect away: %v", err)
	}
	var out map[string]any
	if err := client(t, srv.URL).Call(context.Background(), "moved", nil, &out); err != nil || out["ok"] != true {
		t.Errorf("redirect on the same host: %v %v", err, out)
	}
}

func TestTimeoutIsRetriedThenTransient(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	// Tries are counted where the client sends them, not where the server
	// receives them: on a loaded machine a try may time out before it
	// arrives, and it is still a try.
	tries := &countingTransport{next: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(tries.next.CloseIdleConnections)
	err := client(t, srv.URL, func(c *Config) { c.Timeout = 100 * time.Millisecond; c.Attempts = 2; c.Transport = tries }).
		Call(context.Background(), "weather", nil, &map[string]any{})
	if !extractors.IsTransient(err) || tries.n.Load() != 2 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v after %d tries", err, tries.n.Load())
	}
}

// countingTransport counts the requests the client sends.
type countingTransport struct {
	next *http.Transport
	n    atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

func TestCancelledCallIsTransient(t *testing.T) {
	t.Parallel()
	srv := fake(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) { w.WriteHeader(500) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := client(t, srv.URL).Call(ctx, "weather", nil, &map[string]any{})
	if !extractors.IsTransient(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("%v", err)
	}
}

func TestConnectionRefusedIsTransient(t *testing.T) {
	t.Parallel()
	srv := fake(t, nil)
	url := srv.URL
	srv.Close()
	err := client(t, url).Call(context.Background(), "weather", nil, &map[string]any{})
	if !extractors.IsTransient(err) {
		t.Errorf("%v", err)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{{URL: "", Key: "k"}, {URL: "ftp://x", Key: "k"}, {URL: "https://u:p@x", Key: "k"},
		{URL: "https://x", Key: ""}, {URL: "https://x", Key: "a\nb"}, {URL: "/relative", Key: "k"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	c := client(t, "https://example.test")
	if err := c.Call(context.Background(), "../admin", nil, nil); err == nil {
		t.Error("task with a slash accepted")
	}
	big := make([]byte, DefaultMaxRequest)
	if err := c.Call(context.Background(), "x", big, nil); err == nil || extractors.IsTransient(err) {
		t.Errorf("oversized request: %v", err)
	}
}

func TestLabelsClean(t *testing.T) {
	t.Parallel()
	var l Labels
	json.Unmarshal([]byte(`{"labels":[
		{"name":"football","confidence":0.4,"time":3},
		{"name":"  ","confidence":0.9},
		{"name":"tennis","confidence":1.5},
		{"name":"music","confidence":0.8,"start":2,"end":1},
		{"name":"speech","confidence":0.9,"start":0,"end":4},
		{"name":"late","time":99},
		{"name":"bad\u0000name","confidence":0.1,"time":-1},
		{"name":"crowd"}]}`), &l)
	got := l.Clean(60)
	var names []string
	for _, x := range got {
		names = append(names, x.Name)
	}
	if strings.Join(names, ",") != "speech,football,crowd" {
		t.Errorf("kept %v", names)
	}
	if d := got[0].Data(); d["confidence"] != 0.9 || d["start"] != 0.0 || d["end"] != 4.0 {
		t.Errorf("data %v", d)
	}
}

func FuzzErrorMessage(f *testing.F) {
	for _, s := range []string{`{"error":"x"}`, `{"error":{"code":"c","message":"m"}}`, `{"error":5}`, `<html>`, `{"error":"` + strings.Repeat("é", 300) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := ErrorMessage(b)
		if len([]rune(m)) > maxErrorMessage+1 || strings.ContainsAny(m, "\n\r\x00") {
			t.Fatalf("message %q", m)
		}
	})
}

func FuzzLabels(f *testing.F) {
	f.Add([]byte(`{"labels":[{"name":"football","confidence":0.4,"time":3}]}`))
	f.Add([]byte(`{"labels":[{"name":"x","confidence":-1,"start":5,"end":1e309}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var l Labels
		if json.Unmarshal(b, &l) != nil {
			return
		}
		for _, x := range l.Clean(3600) {
			if x.Name == "" || x.conf() < 0 || x.conf() > 1 {
				t.Fatalf("kept %+v", x)
			}
			if _, err := json.Marshal(x.Data()); err != nil {
				t.Fatal(err)
			}
		}
	})
}
