package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/testmeili"
	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/meili"
)

// The platform with the Meilisearch backend, as processes: the same
// harvests, searches and faults as with the Postgres backend (the other
// tests of this package), against a real Meilisearch (internal/testmeili),
// one server per test.

var debugMeili = os.Getenv("DEBUG_MEILI") != ""

// meiliEnv is the environment that selects srv.
func meiliEnv(srv *testmeili.Server) []string {
	return []string{"MEILI_URL=" + srv.URL, "MEILI_API_KEY=" + srv.Key}
}

// meiliEngine is the engine p's processes use (their indexes are prefixed
// by the Redis namespace), opened by the test to count what they hold.
func (p *platform) meiliEngine(srv *testmeili.Server) *meili.Engine {
	t := p.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := meili.New(ctx, meili.Config{URL: srv.URL, APIKey: srv.Key, IndexPrefix: p.ns + "_"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// meiliCount counts the container's documents a caller with these groups
// finds (all of them when groups is nil); -1 when Meilisearch does not
// answer.
func meiliCount(e *meili.Engine, ctrID string, groups []string) int64 {
	vis := search.Visibility{All: groups == nil, GroupIDs: groups}
	resp, err := e.Search(context.Background(), search.Request{Filters: &search.Filters{
		Terms: []search.Term{{Field: search.FieldContainerID, Value: search.FlexString(ctrID)}}}}, vis)
	if err != nil {
		if debugMeili {
			fmt.Println("meiliCount:", err)
		}
		return -1
	}
	return resp.TotalHits
}

// meiliConverged waits until the job is complete, the outbox empty and the
// index holds every file of the container exactly once (ids are the
// items'), and says how long that took after since.
func (p *platform) meiliConverged(e *meili.Engine, requestID, ctrID string, want int64, since time.Time, within time.Duration) {
	t := p.t
	t.Helper()
	deadline := since.Add(within)
	for {
		var job models.Job
		p.db.Where("request_id = ?", requestID).Take(&job)
		n := meiliCount(e, ctrID, nil)
		if job.WalkComplete && p.harvestEnds(requestID) == want && n == want && p.outboxDepth() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not converged within %s: job %+v, %d harvestend, Meilisearch has %d of %d, outbox %d",
				within, job, p.harvestEnds(requestID), n, want, p.outboxDepth())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("search converged %s after the fault ended", time.Since(since).Round(10*time.Millisecond))
	// Exactly once: every document is a live item of the container, and
	// there are as many documents as items.
	var ids []string
	p.db.Model(&models.Item{}).Where("deleted_at IS NULL AND container_id = ?", ctrID).Pluck("id", &ids)
	if int64(len(ids)) != want {
		t.Fatalf("%d items, want %d", len(ids), want)
	}
	for i := 0; i < len(ids); i += 500 {
		chunk := ids[i:min(i+500, len(ids))]
		resp, err := e.Search(context.Background(), search.Request{Limit: 1000, Only: []string{search.FieldID},
			Filters: &search.Filters{MultiTerms: []search.Term{{Field: search.FieldID, Value: search.FlexString(strings.Join(chunk, ","))}}}}, search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if resp.TotalHits != int64(len(chunk)) {
			t.Fatalf("Meilisearch has %d of %d items of a chunk", resp.TotalHits, len(chunk))
		}
	}
}

// Meilisearch killed (SIGKILL) in the middle of a harvest and started
// again on the same data: nothing lost, nothing twice, and the index
// converges with no scheduler running (the workers' indexers drain the
// outbox again once Meilisearch answers).
func TestMeiliKilledAndRestartedMidHarvest(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := testmeili.Start(t)
	e := p.meiliEngine(srv)
	const n = 800
	req, ctrID, sha := p.folderJob(n)
	w := testproc.Start(t, "worker", p.env(append(meiliEnv(srv), "WORKER_CONCURRENCY=2")...))
	// Killed once a quarter is harvested (Meilisearch has tasks accepted
	// and still to run when it dies: they must run after the restart).
	deadline := time.Now().Add(3 * time.Minute)
	for p.harvestEnds(req) < n/4 {
		if debugMeili {
			fmt.Println("progress", meiliCount(e, ctrID, nil), p.harvestEnds(req), p.outboxDepth())
		}
		if time.Now().After(deadline) || w.Exited() {
			t.Fatalf("no progress (worker exited=%v): %d harvested, %d searchable\n%s", w.Exited(), p.harvestEnds(req), meiliCount(e, ctrID, nil), w.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.Kill()
	at := p.harvestEnds(req)
	if at >= n {
		t.Fatalf("the harvest ended before Meilisearch was killed (%d files): make it bigger", at)
	}
	t.Logf("Meilisearch killed with %d of %d files harvested, %d waiting in the outbox", at, n, p.outboxDepth())
	// The harvest goes on without it: the outbox keeps what could not be
	// sent.
	p.waitFor(req, n, w)
	if p.outboxDepth() == 0 {
		t.Fatal("the outbox is empty although Meilisearch is down")
	}
	t.Logf("every file harvested with Meilisearch down; %d items wait in the outbox", p.outboxDepth())
	srv.Restart(t)
	restarted := time.Now()
	p.meiliConverged(e, req, ctrID, n, restarted, 2*time.Minute)
	p.checkHashes(sha)
}

// The platform over HTTP with Meilisearch: a harvest becomes searchable
// (name, words of a text file), group edits re-class the documents, and the
// Meilisearch key is in no answer, log line or help text.
func TestMeiliHarvestSearchVisibilityAndKey(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := testmeili.Start(t)
	e := p.meiliEngine(srv)
	root := t.TempDir()
	const n = 60
	os.MkdirAll(filepath.Join(root, "media"), 0o755)
	for i := range n - 1 {
		os.WriteFile(filepath.Join(root, "media", fmt.Sprintf("clip%03d.bin", i)), []byte(fmt.Sprintf("data %d", i)), 0o644)
	}
	os.WriteFile(filepath.Join(root, "media", "notes.txt"), []byte("a note about the quixotic wombat\n"), 0o644)
	c, api := p.startAPI(meiliEnv(srv)...)
	w := testproc.Start(t, "worker", p.env(append(meiliEnv(srv), "WORKER_CONCURRENCY=2")...))
	loc := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Archive",
		"config": map[string]any{"path": root}}, 201)
	locID := loc["id"].(string)
	ctrID := models.ContainerID(locID, "media")
	c.call("POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID}, 202)
	searchAPI := func(q map[string]any) float64 {
		return c.call("POST", "/api/data/search", q, 200)["total_hits"].(float64)
	}
	byContainer := map[string]any{"filters": map[string]any{"terms": []map[string]any{{"field": "store_container_id", "value": ctrID}}}}
	deadline := time.Now().Add(2 * time.Minute)
	for searchAPI(byContainer) != n {
		if time.Now().After(deadline) {
			t.Fatalf("search has %v of %d files", searchAPI(byContainer), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := searchAPI(map[string]any{"query": "wombat"}); got != 1 {
		t.Errorf("words of the text file: %v hits", got)
	}
	if got := searchAPI(map[string]any{"query": "notes.txt"}); got != 1 {
		t.Errorf("a file name: %v hits", got)
	}

	// The container is restricted to a group: a caller without it stops
	// finding its files, a member still does; opened again, everyone does.
	group := c.call("POST", "/api/data/v3/groups", map[string]any{"name": "Vault"}, 201)["id"].(string)
	setGroups := func(groups []string, outsider int64) {
		t.Helper()
		c.call("PUT", "/api/data/containers", map[string]any{"id": ctrID, "location_id": locID, "enabled": true, "groups": groups}, 200)
		deadline := time.Now().Add(time.Minute)
		for meiliCount(e, ctrID, []string{}) != outsider || meiliCount(e, ctrID, []string{group}) != n {
			if time.Now().After(deadline) {
				t.Fatalf("groups %v: an outsider finds %d files (want %d), a member %d (want %d)",
					groups, meiliCount(e, ctrID, []string{}), outsider, meiliCount(e, ctrID, []string{group}), n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	setGroups([]string{group}, 0)
	setGroups([]string{}, n)

	// The key: nowhere a client or an operator reads.
	for _, path := range []string{"/readyz", "/healthz", "/api/data/extractors", "/api/data/search/fields"} {
		req, _ := http.NewRequest(http.MethodGet, c.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+c.token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(body), srv.Key) || strings.Contains(fmt.Sprint(res.Header), srv.Key) {
			t.Errorf("GET %s shows the Meilisearch key", path)
		}
	}
	if strings.Contains(api.Output(), srv.Key) || strings.Contains(w.Output(), srv.Key) {
		t.Error("a log line shows the Meilisearch key")
	}
	for _, args := range [][]string{{"--help"}, {"api", "--help"}, {"reindex", "--help"}, {"search", "--help"}} {
		r := runCLIWithEnv(t, p.env(meiliEnv(srv)...), args...)
		if strings.Contains(r.stdout+r.stderr, srv.Key) {
			t.Errorf("metaharvest %s shows the Meilisearch key", strings.Join(args, " "))
		}
	}
}

// An existing platform moves to Meilisearch: its files were indexed by the
// Postgres backend; the workers are switched and harvest on, and
// `metaharvest reindex` fills Meilisearch from the database meanwhile.
// Every file of both harvests ends in Meilisearch once; a reindex that
// finds an unfinished one resumes it (no reset).
func TestMeiliReindexMovesAPlatform(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := testmeili.Start(t)
	e := p.meiliEngine(srv)
	const n = 300
	reqA, ctrA, _ := p.folderJob(n)
	pg := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	p.waitFor(reqA, n, pg)
	pg.Stop()

	// Switched: a worker on Meilisearch harvests a second folder while
	// reindex runs.
	root := t.TempDir()
	randomFiles(t, n, 512, func(name string, data []byte) {
		path := filepath.Join(root, "more", name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	p.db.Create(&models.Location{ID: "fs2", Kind: "filesystem", Name: "fs2", Config: models.MustJSON(map[string]string{"path": root})})
	ctrB := models.ContainerID("fs2", "more")
	p.db.Create(&models.Container{ID: ctrB, LocationID: "fs2", Name: "more"})
	reqB := p.startJob("fs2", ctrB)
	testproc.Start(t, "worker", p.env(append(meiliEnv(srv), "WORKER_CONCURRENCY=2")...))
	env := p.env(append(meiliEnv(srv), "LOG_LEVEL=info")...)
	r := runCLIWithEnv(t, env, "reindex")
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "reindex started") || !strings.Contains(r.stderr+r.stdout, "search index rebuilt") {
		t.Fatalf("reindex: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := meiliCount(e, ctrA, nil); got != n {
		t.Fatalf("after reindex, Meilisearch has %d of the %d files indexed before the switch", got, n)
	}
	p.meiliConverged(e, reqB, ctrB, n, time.Now(), 2*time.Minute)

	// An unfinished reindex (its record left, items still dirty) resumes:
	// what is indexed stays, what is dirty is indexed.
	opt, err := redis.ParseURL(p.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if err := rdb.Set(context.Background(), "metaharvest:reindex:"+p.ns, time.Now().Add(-time.Minute).Format(time.RFC3339Nano), 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := search.MarkDirtyWhere(p.db, "container_id = ?", ctrA); err != nil {
		t.Fatal(err)
	}
	r = runCLIWithEnv(t, env, "reindex")
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "reindex resumed") {
		t.Fatalf("resumed reindex: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if a, b := meiliCount(e, ctrA, nil), meiliCount(e, ctrB, nil); a != n || b != n || p.outboxDepth() != 0 {
		t.Fatalf("after the resumed reindex: %d and %d files (want %d each), outbox %d", a, b, n, p.outboxDepth())
	}
	if n, _ := rdb.Exists(context.Background(), "metaharvest:reindex:"+p.ns).Result(); n != 0 {
		t.Fatal("the reindex record outlived the reindex")
	}
}
