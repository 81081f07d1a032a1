package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// nlpProvider is the language-analysis provider of tokens_provider, run by
// the test: it refuses a text holding "refuse" (a deterministic extractor
// error) and answers 503 to the first three calls about a text holding
// "transient" (the client's three tries, then a transient error that
// fails the task for asynq to retry); it analyses everything else.
type nlpProvider struct {
	mu      sync.Mutex
	flaky   int
	refused int
}

func (p *nlpProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Input struct {
			Text string `json:"text"`
		} `json:"input"`
	}
	if r.URL.Path != "/nlp" || r.Header.Get("Authorization") != "Bearer nlp-key-1" || json.NewDecoder(r.Body).Decode(&body) != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.Contains(body.Input.Text, "refuse"):
		p.refused++
		w.WriteHeader(http.StatusUnprocessableEntity)
		w.Write([]byte(`{"error":"this text cannot be analysed"}`))
		return
	case strings.Contains(body.Input.Text, "transient"):
		if p.flaky++; p.flaky <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":"busy"}`))
			return
		}
	}
	w.Write([]byte(`{"source":"test nlp","language":{"code":"en","name":"English","confidence":0.9}}`))
}

// The series of the operations issue that only a failure moves, shown
// moving through /metrics at their real measuring points, with the api and
// the worker as separate processes: the oldest pending task's age
// (queue_latency, read from asynq while no worker runs), a task that fails
// transiently and is retried (the worker's middleware and asynq's error
// handler), an extractor that fails (the runner's observer wired in
// run.go) and the file it fails on (the harvest's record), and a search
// against an engine that is down (search.Observed wired in run.go).
func TestMetricsMoveAtTheirMeasuringPoints(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	prov := &nlpProvider{}
	ps := httptest.NewServer(prov)
	t.Cleanup(ps.Close)
	common := []string{"NLP_API_URL=" + ps.URL, "NLP_API_KEY=nlp-key-1", "METRICS_TOKEN=" + testMetricsToken}
	root := t.TempDir()
	dir := filepath.Join(root, "notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"plain.txt":   "plain words about the harbour",
		"refused.txt": "words the provider will refuse",
		"flaky.txt":   "words the provider fails on, a transient trouble",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := p.startAPI(common...)
	loc := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Notes",
		"config": map[string]any{"path": root}}, 201)["id"].(string)
	ctr := ""
	for _, ct := range c.call("GET", "/api/data/locations/"+loc+"/containers", nil, 200)["containers"].([]any) {
		if m := ct.(map[string]any); m["name"] == "notes" {
			ctr = m["id"].(string)
		}
	}
	// tokens_provider sends text away, so it is off until an administrator
	// turns it on.
	c.call("PUT", "/api/data/extractors/tokens_provider", map[string]any{"enabled": true}, 200)
	before := scrape(t, c.base, testMetricsToken)
	moved := func(after map[string]*dto.MetricFamily, fam string, labels map[string]string) float64 {
		return sample(after, fam, labels) - sample(before, fam, labels)
	}
	// waitFor scrapes until ok holds: processes add their counts to the
	// deployment's totals every second.
	waitFor := func(what string, ok func(map[string]*dto.MetricFamily) bool) map[string]*dto.MetricFamily {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			m := scrape(t, c.base, testMetricsToken)
			if ok(m) {
				return m
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen within 30s", what)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	// No worker yet: the walk task waits, and its queue's latency grows.
	req := c.call("POST", "/api/control/harvest", map[string]any{"location_id": loc, "container_id": ctr,
		"extractors": []string{"text", "tokens_provider"}}, 202)["request_id"].(string)
	walk := map[string]string{"queue": "walk"}
	if got := sample(before, "metaharvest_queue_latency_seconds", walk); got != 0 {
		t.Fatalf("walk queue latency %v before anything was queued", got)
	}
	waitFor("walk queue latency of 1s", func(m map[string]*dto.MetricFamily) bool {
		return sample(m, "metaharvest_queue_latency_seconds", walk) >= 1
	})

	// A worker harvests one file per task: plain.txt, refused.txt (the
	// extractor's error is recorded, the task succeeds) and flaky.txt (its
	// first run fails the task, asynq retries it, the second succeeds).
	testproc.Start(t, "worker", p.env(append(common, "WORKER_CONCURRENCY=1", "HARVEST_BATCH_FILES=1")...))
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := c.call("GET", "/api/control/harvest/"+req, nil, 200)
		if st["state"] == "done" {
			counts := st["counts"].(map[string]any)
			if counts["harvested"] != 2.0 || counts["failed"] != 1.0 {
				t.Fatalf("job done with counts %v", counts)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not done: %v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	item := map[string]string{"type": "harvest:item"}
	tokens := map[string]string{"extractor": "tokens_provider"}
	after := waitFor("the harvest's counts", func(m map[string]*dto.MetricFamily) bool {
		return moved(m, "metaharvest_items_harvested_total", nil) >= 2 && moved(m, "metaharvest_items_failed_total", nil) >= 1 &&
			moved(m, "metaharvest_tasks_processed_total", item) >= 4 && sample(m, "metaharvest_queue_latency_seconds", walk) == 0
	})
	for _, want := range []struct {
		fam    string
		labels map[string]string
		delta  float64
	}{
		{"metaharvest_tasks_failed_total", item, 1},
		{"metaharvest_tasks_retried_total", item, 1},
		{"metaharvest_tasks_processed_total", item, 4},
		{"metaharvest_tasks_failed_total", map[string]string{"type": "harvest:walk"}, 0},
		{"metaharvest_extractor_errors_total", tokens, 2}, // refused.txt, and flaky.txt's first run
		{"metaharvest_extractor_errors_total", map[string]string{"extractor": "text"}, 0},
		{"metaharvest_extractor_duration_seconds", tokens, 4},
		{"metaharvest_items_harvested_total", nil, 2},
		{"metaharvest_items_failed_total", nil, 1},
	} {
		if got := moved(after, want.fam, want.labels); got != want.delta {
			t.Errorf("%s%v moved by %v, want %v", want.fam, want.labels, got, want.delta)
		}
	}
	prov.mu.Lock()
	if prov.flaky != 4 || prov.refused != 1 {
		t.Errorf("provider calls: %d about flaky.txt (want 3 refused, then 1), %d about refused.txt", prov.flaky, prov.refused)
	}
	prov.mu.Unlock()

	// A search against an engine that is down: a second api whose
	// Meilisearch does not answer (the engine opens lazily; 503).
	searches := map[string]string{"operation": "search"}
	broken, _ := p.startAPI(append(common, "MEILI_URL=http://"+testproc.FreeAddr(t), "MEILI_ENV=development")...)
	broken.call("POST", "/api/data/search", map[string]any{"query": "words"}, http.StatusServiceUnavailable)
	after = waitFor("the failed search", func(m map[string]*dto.MetricFamily) bool {
		return moved(m, "metaharvest_search_errors_total", searches) >= 1
	})
	if got := moved(after, "metaharvest_search_errors_total", searches); got != 1 {
		t.Errorf("search errors moved by %v, want 1", got)
	}
	// The working engine's searches are timed, not counted as errors.
	c.call("POST", "/api/data/search", map[string]any{"query": "words"}, 200)
	final := waitFor("the working search", func(m map[string]*dto.MetricFamily) bool {
		return moved(m, "metaharvest_search_duration_seconds", searches) >= 2
	})
	if got := moved(final, "metaharvest_search_errors_total", searches); got != 1 {
		t.Errorf("search errors moved by %v after a working search, want 1", got)
	}
}
