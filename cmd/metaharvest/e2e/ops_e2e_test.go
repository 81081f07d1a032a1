package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

const testMetricsToken = "scrape-me-0123456789abcdef"

// The operator's view of a harvest, with the api and a worker as separate
// processes: the command line starts it and follows it with a progress bar
// to its end, /metrics shows the deployment's series moving while it runs
// (counted by the worker process, read through the api), jobs lists what
// is under way, search prints a table, and a harvest that fails exits
// non-zero.
func TestOperatorCommandsAndMetricsDuringAHarvest(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	root := t.TempDir()
	const n = 1500
	writeFiles(t, filepath.Join(root, "papers"), n)
	writeFiles(t, filepath.Join(root, "later"), 3)
	if err := os.MkdirAll(filepath.Join(root, "vanishing"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, _ := p.startAPI("METRICS_TOKEN=" + testMetricsToken)
	key := c.call("POST", "/api/data/api-keys", map[string]any{"name": "operator cli"}, 201)["jwt"].(string)
	c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Archive", "config": map[string]any{"path": root}}, 201)

	// No worker yet: a harvest started without --wait prints its request
	// id, and jobs lists it as queued.
	queued := runCLIProcess(t, c.base, key, "harvest", "--location", "Archive", "--container", "later")
	if queued.code != 0 || len(strings.TrimSpace(queued.stdout)) != 32 {
		t.Fatalf("harvest without --wait: %+v", queued)
	}
	laterID := strings.TrimSpace(queued.stdout)
	jobs := runCLIProcess(t, c.base, key, "jobs")
	if jobs.code != 0 || !regexp.MustCompile(laterID+`\s+harvest\s+queued\s+0/0`).MatchString(jobs.stdout) {
		t.Fatalf("jobs: %+v", jobs)
	}

	before := scrape(t, c.base, testMetricsToken)
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=1", "HARVEST_BATCH_FILES=5"))

	// Scrape while the harvest runs.
	type point struct {
		items, tasks float64
	}
	var seen []point
	stop := make(chan struct{})
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
			f := scrape(t, c.base, testMetricsToken)
			seen = append(seen, point{sample(f, "metaharvest_items_harvested_total", nil),
				sample(f, "metaharvest_tasks_processed_total", map[string]string{"type": "harvest:item"})})
		}
	}()
	run := runCLIProcess(t, c.base, key, "harvest", "--location", "Archive", "--container", "papers", "--wait",
		"--interval", "200ms", "--extractors", "hashes")
	close(stop)
	<-scraped
	if run.code != 0 {
		t.Fatalf("harvest --wait: exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	t.Logf("harvest --wait printed:\n%s%s", run.stderr, run.stdout)
	if !regexp.MustCompile(`done\s+\[#{24}\] 1500/1500 files  [0-9.]+ files/s  0 errors  ETA 0s`).MatchString(run.stderr) ||
		!regexp.MustCompile(`(?m)^done: 1500 harvested, 0 failed, 0 unchanged of 1500 files in `).MatchString(run.stdout) {
		t.Fatalf("progress and summary not as expected:\n%s\n%s", run.stderr, run.stdout)
	}

	// The series moved while the harvest ran (the worker's counts reach
	// the api's /metrics through the totals), and end exactly right.
	base := sample(before, "metaharvest_items_harvested_total", nil)
	mid := 0
	for i, pt := range seen {
		if i > 0 && pt.items < seen[i-1].items {
			t.Fatalf("items harvested went down: %v", seen)
		}
		if pt.items > base && pt.items < base+n+3 {
			mid++
		}
	}
	if mid == 0 {
		t.Fatalf("no scrape saw the harvest under way: %v", seen)
	}
	var after = scrape(t, c.base, testMetricsToken)
	deadline := time.Now().Add(30 * time.Second)
	// Processes add their counts to the shared totals every second: wait
	// for the last index upsert to be flushed too, not only for the outbox.
	upserts := func(m map[string]*dto.MetricFamily) float64 {
		return sample(m, "metaharvest_search_duration_seconds", map[string]string{"operation": "upsert"})
	}
	for sample(after, "metaharvest_items_harvested_total", nil) < base+n+3 || sample(after, "metaharvest_search_outbox_depth", nil) != 0 ||
		upserts(after) <= upserts(before) {
		if time.Now().After(deadline) {
			t.Fatalf("items harvested %v (from %v), outbox %v", sample(after, "metaharvest_items_harvested_total", nil), base,
				sample(after, "metaharvest_search_outbox_depth", nil))
		}
		time.Sleep(200 * time.Millisecond)
		after = scrape(t, c.base, testMetricsToken)
	}
	if got := sample(after, "metaharvest_items_harvested_total", nil) - base; got != n+3 {
		t.Fatalf("items harvested: +%v, want %d", got, n+3)
	}
	for _, check := range []struct {
		fam    string
		labels map[string]string
		min    float64
	}{
		{"metaharvest_extractor_duration_seconds", map[string]string{"extractor": "hashes"}, n + 3},
		{"metaharvest_task_duration_seconds", map[string]string{"type": "harvest:item"}, n / 5},
		{"metaharvest_tasks_processed_total", map[string]string{"type": "harvest:walk"}, 2},
		{"metaharvest_queue_processed_total", map[string]string{"queue": "stage05"}, n / 5},
		{"metaharvest_search_duration_seconds", map[string]string{"operation": "upsert"}, 1},
		{"metaharvest_http_requests_total", map[string]string{"route": "/api/control/harvest/:id", "status": "200"}, 1},
		{"metaharvest_db_connections_max", map[string]string{"role": "worker"}, 0},
	} {
		got := sample(after, check.fam, check.labels) - sample(before, check.fam, check.labels)
		if got < check.min {
			t.Errorf("%s%v moved by %v, want at least %v", check.fam, check.labels, got, check.min)
		}
	}
	if _, ok := after["metaharvest_db_connections"]; !ok {
		t.Error("no connection pool series")
	}
	if sample(after, "metaharvest_workers", nil) != 1 {
		t.Errorf("workers: %v", sample(after, "metaharvest_workers", nil))
	}

	// jobs: nothing under way now; --all lists both.
	if r := runCLIProcess(t, c.base, key, "jobs"); r.code != 0 || !strings.Contains(r.stdout, "no harvest under way") {
		t.Fatalf("jobs after: %+v", r)
	}
	if r := runCLIProcess(t, c.base, key, "jobs", "--all"); r.code != 0 || !strings.Contains(r.stdout, laterID) ||
		strings.Count(r.stdout, " done ") != 2 {
		t.Fatalf("jobs --all: %+v", r)
	}

	// search prints a table; a filter narrows it.
	s := runCLIProcess(t, c.base, key, "search", "file00017", "--fields", "name,store_container_name")
	if s.code != 0 || !regexp.MustCompile(`(?m)^ID\s+NAME\s+STORE_CONTAINER_NAME$`).MatchString(s.stdout) ||
		!regexp.MustCompile(`(?m)^[0-9a-f]{32}\s+file00017\.txt\s+papers$`).MatchString(s.stdout) {
		t.Fatalf("search: %+v", s)
	}
	f := runCLIProcess(t, c.base, key, "search", "--filter", "store_container_name=later", "--limit", "10")
	if f.code != 0 || !strings.Contains(f.stdout, "3 of 3 results") || strings.Contains(f.stdout, "papers") {
		t.Fatalf("search with a filter: %+v", f)
	}
	if r := runCLIProcess(t, c.base, key, "search", "--filter", "no.such.field=1"); r.code != 1 || !strings.Contains(r.stderr, "400") {
		t.Fatalf("search on an unknown field: %+v", r)
	}

	// A container whose folder is gone: the walk fails, and so does the command.
	// (given by id: storage no longer lists it by name).
	vanishing := ""
	for _, ct := range c.call("GET", "/api/data/locations/"+c.locationID("Archive")+"/containers", nil, 200)["containers"].([]any) {
		if m := ct.(map[string]any); m["name"] == "vanishing" {
			vanishing = m["id"].(string)
		}
	}
	if err := os.Remove(filepath.Join(root, "vanishing")); err != nil {
		t.Fatal(err)
	}
	gone := runCLIProcess(t, c.base, key, "harvest", "--location", "Archive", "--container", vanishing, "--wait", "--interval", "100ms")
	if gone.code != 1 || !strings.Contains(gone.stdout, "failed: ") || !strings.Contains(gone.stderr, "failed") {
		t.Fatalf("harvest of a vanished folder: %+v", gone)
	}
	if r := runCLIProcess(t, c.base, "not-a-key", "jobs"); r.code != 1 || !strings.Contains(r.stderr, "401") {
		t.Fatalf("bad key: %+v", r)
	}
	if r := runCLIProcess(t, c.base, key, "harvest", "--location", "Nowhere", "--container", "x"); r.code != 1 ||
		!strings.Contains(r.stderr, `no location with id or name "Nowhere"`) {
		t.Fatalf("unknown location: %+v", r)
	}
}

// locationID finds a location's id by name.
func (c *client) locationID(name string) string {
	c.t.Helper()
	for _, l := range c.call("GET", "/api/data/v3/locations", nil, 200)["locations"].([]any) {
		m := l.(map[string]any)
		if m["name"] == name {
			return m["id"].(string)
		}
	}
	c.t.Fatalf("no location %s", name)
	return ""
}
