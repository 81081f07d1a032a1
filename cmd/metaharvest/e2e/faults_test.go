package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/internal/testredis"
	"github.com/metaharvest/metaharvest/models"
)

// Fault tests: a harvest survives its infrastructure restarting under it.
// Each ends with every file harvested exactly once, exact counters and a
// search index that has every file, and reports the time to recover. (The
// worker kills are in crash_test.go.)

// folderJob writes n random files into a filesystem location of p and
// starts a forced harvest of its container.
func (p *platform) folderJob(n int) (requestID, ctrID string, sha map[string]string) {
	t := p.t
	t.Helper()
	root := t.TempDir()
	sha = randomFiles(t, n, 1024, func(name string, data []byte) {
		path := filepath.Join(root, "media", name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	p.db.Create(&models.Location{ID: "fs", Kind: "filesystem", Name: "fs", Config: models.MustJSON(map[string]string{"path": root})})
	ctr := models.Container{ID: models.ContainerID("fs", "media"), LocationID: "fs", Name: "media"}
	p.db.Create(&ctr)
	return p.startJob("fs", ctr.ID), ctr.ID, sha
}

// waitFor polls until at least n items of the job are harvested.
func (p *platform) waitFor(requestID string, n int64, workers ...*testproc.Process) {
	p.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for p.harvestEnds(requestID) < n {
		for _, w := range workers {
			if w.Exited() {
				p.t.Fatalf("a worker exited:\n%s", w.Output())
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no progress: %d of %d", p.harvestEnds(requestID), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Redis killed mid-harvest and started again: with the append-only file
// (appendfsync always) it comes back with every task, lease and counter, so
// the workers carry on without any repair by the scheduler (none runs).
func TestRedisRestartWithAOFMidHarvest(t *testing.T) {
	t.Parallel()
	rds := startPrivateRedis(t)
	p := newPlatformOn(t, testdb.URL(t), rds.URL())
	const n = 1000
	req, ctrID, sha := p.folderJob(n)
	w1 := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	w2 := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	p.waitFor(req, n/4, w1, w2)
	rds.restart(time.Second)
	back := time.Now()
	at := p.harvestEnds(req)
	if at >= n {
		t.Fatalf("the job finished before Redis restarted (%d): make it bigger", at)
	}
	t.Logf("redis killed (SIGKILL) and restarted with %d of %d files harvested", at, n)
	// A task whose dequeue Redis wrote to its log but whose answer the
	// kill cut off is active with no worker on it: asynq gives it back
	// once its lease has expired (30 s) by asynq's margin (30 s) when its
	// recoverer next looks (each minute), as after a worker kill.
	p.recovered("a Redis restart (AOF)", req, ctrID, n, back, 4*time.Minute)
	p.checkExactlyOnce(req, ctrID, n, sha)
	if w1.Exited() || w2.Exited() {
		t.Fatal("a worker exited while Redis was down")
	}
}

// Postgres crashed (immediate shutdown) mid-harvest and started again: the
// workers' transactions in flight roll back, their tasks fail and are
// retried with backoff, and the job completes. With the Postgres search
// backend this is also the search backend stopping mid-harvest: items
// saved before the crash wait in the outbox (itself in Postgres, replayed
// from the write-ahead log) and reach the index after.
func TestPostgresRestartMidHarvest(t *testing.T) {
	t.Parallel()
	pg := startPrivatePostgres(t)
	p := newPlatformOn(t, pg.URL(), testredis.URL())
	const n = 1000
	req, ctrID, sha := p.folderJob(n)
	w1 := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	w2 := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	p.waitFor(req, n/4, w1, w2)
	pg.restart(2 * time.Second)
	back := time.Now()
	at := p.harvestEnds(req)
	if at >= n {
		t.Fatalf("the job finished before Postgres restarted (%d): make it bigger", at)
	}
	t.Logf("postgres crashed (immediate shutdown) for 2s with %d of %d files harvested", at, n)
	p.recovered("a Postgres restart (also the search backend)", req, ctrID, n, back, 2*time.Minute)
	p.checkExactlyOnce(req, ctrID, n, sha)
	if w1.Exited() || w2.Exited() {
		t.Fatal("a worker exited while Postgres was down")
	}
}

// The search backend alone stops mid-harvest (its tables taken offline,
// Postgres itself up): harvesting goes on to the end, the items wait in the
// outbox, and once the backend is back the index converges. A scheduler
// runs, as in a deployment: its periodic index kick is the safety net.
func TestSearchBackendDownMidHarvest(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	const n = 800
	req, ctrID, sha := p.folderJob(n)
	w := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	// JOB_STALL_TIMEOUT=3: the scheduler's round (and its index kick) every second.
	testproc.Start(t, "scheduler", p.env("HARVEST_REFRESH_TIME=3600", "JOB_STALL_TIMEOUT=3"))
	p.waitFor(req, n/4, w)
	if err := p.db.Exec(`ALTER TABLE search_documents RENAME TO search_documents_offline`).Error; err != nil {
		t.Fatal(err)
	}
	at := p.harvestEnds(req)
	t.Logf("search backend stopped with %d of %d files harvested", at, n)
	p.waitFor(req, n, w)
	var job models.Job
	p.db.Where("request_id = ?", req).Take(&job)
	if p.outboxDepth() == 0 {
		t.Fatal("the outbox is empty although the search backend is down")
	}
	t.Logf("every file harvested with the search backend down; %d items wait in the outbox", p.outboxDepth())
	if err := p.db.Exec(`ALTER TABLE search_documents_offline RENAME TO search_documents`).Error; err != nil {
		t.Fatal(err)
	}
	p.recovered("the search backend stopping", req, ctrID, n, time.Now(), 2*time.Minute)
	p.checkExactlyOnce(req, ctrID, n, sha)
}
