package nlp

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// tokens_provider against a provider the tests start. The golden tests
// replay recorded answers (testdata/provider/*.json) to the analysis of the
// first chapter of Twenty Thousand Leagues Under the Sea (the text a pdf
// extractor gave) and pin what is kept of each, refusals included.

type nlpRequest struct {
	Path, Auth, ContentType string
	Task                    string `json:"task"`
	Input                   struct {
		Text string `json:"text"`
	} `json:"input"`
}

type nlpProvider struct {
	mu       sync.Mutex
	requests []nlpRequest
	reply    func(n int) (status int, body string)
}

func (f *nlpProvider) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req nlpRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			w.WriteHeader(400)
			return
		}
		req.Path, req.Auth, req.ContentType = r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type")
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

func (f *nlpProvider) all() []nlpRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]nlpRequest(nil), f.requests...)
}

func nlpEnv(url string) map[string]string {
	return map[string]string{"NLP_API_URL": url, "NLP_API_KEY": "nlpkey"}
}

func providerRegistry(t testing.TB, env map[string]string) *extractors.Registry {
	return extractortest.Registry(t, env, "store", "mime_type", ProviderName)
}

func TestProviderGolden(t *testing.T) {
	t.Parallel()
	chapter := readFile(t, "verne-20k-c1.txt")
	extractortest.Golden(t, "testdata/provider", ".json", func(t *testing.T, name string, answer []byte) (any, error) {
		f := &nlpProvider{reply: func(int) (int, string) { return 0, string(answer) }}
		url := f.start(t)
		o := run(t, providerRegistry(t, nlpEnv(url)), ProviderName, prior(t, "pdf", map[string]any{"title": "Chapter I", "text": chapter}))
		reqs := f.all()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		r := reqs[0]
		if r.Path != "/nlp" || r.Task != "nlp" || r.Auth != "Bearer nlpkey" || r.ContentType != "application/json" ||
			r.Input.Text != "Chapter I\n\n"+strings.TrimSpace(chapter) {
			t.Errorf("request %s %q %q %q, text of %d bytes", r.Path, r.Task, r.Auth, r.ContentType, len(r.Input.Text))
		}
		if o.Err != nil {
			return nil, o.Err
		}
		var data map[string]any
		json.Unmarshal(o.JSON, &data)
		if data["source"] == strings.TrimPrefix(url, "http://") {
			data["source"] = "provider.test"
		}
		return data, nil
	})
}

// The text sent is what tokens reads, at most 200 KiB of it; no text, no
// call.
func TestProviderText(t *testing.T) {
	t.Parallel()
	f := &nlpProvider{reply: func(int) (int, string) { return 0, `{}` }}
	reg := providerRegistry(t, nlpEnv(f.start(t)))
	big := strings.Repeat("Ships sail. ", MaxAnalysed/8)
	o := run(t, reg, ProviderName, prior(t, "text", map[string]any{"text": big}, "speech_to_text_provider", map[string]any{"transcript": "more"}))
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if r := f.all()[0]; len(r.Input.Text) > MaxAnalysed || o.Data["truncated"] != true || o.Data["characters"] != len(r.Input.Text) {
		t.Errorf("sent %d bytes, data %v %v", len(r.Input.Text), o.Data["truncated"], o.Data["characters"])
	}
	o = run(t, reg, ProviderName, prior(t, "mediainfo", map[string]any{"title": "not text"}))
	if !errors.Is(o.Err, extractors.ErrUnsupported) || len(f.all()) != 1 {
		t.Errorf("no text: %v after %d calls", o.Err, len(f.all()))
	}
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
		{"key refused", func(int) (int, string) { return 401, `{"error":"expired key"}` }, 1, false, "status 401 (key refused): expired key"},
		{"busy then answers", func(n int) (int, string) {
			if n == 1 {
				return 429, ""
			}
			return 0, `{"sentiment":[{"name":"neutral","confidence":1}]}`
		}, 2, false, ""},
		{"down", func(int) (int, string) { return 503, "" }, provider.DefaultAttempts, true, "status 503"},
		{"oversized", func(int) (int, string) { return 0, `{"x":"` + strings.Repeat("a", 1<<20) + `"}` }, 1, false, "answer over"},
		{"too many entries", func(int) (int, string) {
			return 0, `{"entities":[` + strings.Repeat(`{"name":"a"},`, maxNLPEntries) + `{"name":"a"}]}`
		}, 1, false, "10001 entries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &nlpProvider{reply: c.reply}
			o := run(t, providerRegistry(t, nlpEnv(f.start(t))), ProviderName, prior(t, "text", map[string]any{"text": "The mayor of Paris."}))
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
	f := &nlpProvider{reply: func(int) (int, string) { return 0, `{}` }}
	url := f.start(t)
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "not available: nlp provider setting NLP_API_URL, NLP_API_KEY not set"},
		{map[string]string{"NLP_API_URL": url}, "not available: nlp provider setting NLP_API_KEY not set"},
		{map[string]string{"NLP_API_KEY": "k"}, "not available: nlp provider setting NLP_API_URL not set"},
		{map[string]string{"NLP_API_URL": "http://user:pw@" + strings.TrimPrefix(url, "http://"), "NLP_API_KEY": "k"}, "must not carry a user"},
	} {
		o := run(t, providerRegistry(t, c.env), ProviderName, prior(t, "text", map[string]any{"text": "Hello."}))
		if !errors.Is(o.Err, extractors.ErrUnavailable) || !strings.Contains(o.Err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.env, o.Err, c.want)
		}
	}
	if n := len(f.all()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestProviderSuite(t *testing.T) {
	t.Parallel()
	f := &nlpProvider{reply: func(int) (int, string) { return 0, `{}` }}
	extractortest.Suite(t, providerRegistry(t, nlpEnv(f.start(t))), []string{"testdata/gpl-3.txt"})
}
