package e2e

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/extractors"
	// The registry the tests start jobs with in-process, and ask what is
	// available, holds every family, as the binary's does.
	_ "github.com/metaharvest/metaharvest/extractors/families"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/internal/testredis"
	"github.com/metaharvest/metaharvest/models"
)

func TestMain(m *testing.M) { os.Exit(testbucket.RunMain(m)) }

// platform is a database, a Redis namespace and a data dir shared by the
// processes a test starts.
type platform struct {
	t        *testing.T
	dbURL    string
	redisURL string
	db       *gorm.DB
	ns       string
	data     string
	client   *asynq.Client
	opt      asynq.RedisConnOpt
}

func newPlatform(t *testing.T) *platform {
	return newPlatformOn(t, testdb.URL(t), testredis.URL())
}

// newPlatformOn is a platform on the given database and Redis (the fault
// tests' private servers).
func newPlatformOn(t *testing.T, dbURL, redisURL string) *platform {
	p := &platform{t: t, dbURL: dbURL, redisURL: redisURL, ns: testredis.Namespace(t), data: t.TempDir()}
	db, err := models.Open(p.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s, _ := db.DB(); s.Close() })
	p.db = db
	if p.opt, err = queue.RedisOpt(p.redisURL); err != nil {
		t.Fatal(err)
	}
	p.client = asynq.NewClient(p.opt)
	t.Cleanup(func() { p.client.Close() })
	return p
}

func (p *platform) env(extra ...string) []string {
	return append([]string{
		"DATABASE_URL=" + p.dbURL, "REDIS_URL=" + p.redisURL, "REDIS_NAMESPACE=" + p.ns,
		"DATA_DIR=" + p.data, "LOG_LEVEL=warn", "EXTRACTOR_TIMEOUT=60",
		// Small batches: the job advances in small steps, so a kill lands
		// mid-harvest whatever the machine's speed.
		"HARVEST_BATCH_FILES=25",
	}, extra...)
}

func (p *platform) startJob(locID, ctrID string) string {
	p.t.Helper()
	s := &jobs.Starter{DB: p.db, Queue: p.client, Names: queue.Names{Namespace: p.ns}, Registry: extractors.Default}
	id, err := s.Start(context.Background(), jobs.Spec{LocationID: locID, ContainerID: ctrID, Force: true, Extractors: []string{"hashes"}})
	if err != nil {
		p.t.Fatal(err)
	}
	return id
}

func (p *platform) harvestEnds(requestID string) int64 {
	var n int64
	p.db.Model(&models.Activity{}).Where("request_id = ? AND kind = 'harvestend'", requestID).Count(&n)
	return n
}

// killMidHarvest runs a worker until part of the job is done and kills it
// with SIGKILL, runs a second one until more is done and kills it too, lets
// two fresh workers finish, and checks that every item was harvested
// exactly once, the counters are exact and search has every file.
func (p *platform) killMidHarvest(requestID, ctrID string, want int64, sha map[string]string) {
	t := p.t
	at := int64(0)
	var killed time.Time
	for kill := 1; kill <= 2; kill++ {
		w := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
		deadline := time.Now().Add(3 * time.Minute)
		for p.harvestEnds(requestID) < at+want/5 {
			if time.Now().After(deadline) || w.Exited() {
				t.Fatalf("worker %d made no progress (exited=%v)", kill, w.Exited())
			}
			time.Sleep(10 * time.Millisecond)
		}
		w.Kill()
		killed = time.Now()
		at = p.harvestEnds(requestID)
		if at >= want {
			t.Fatalf("the job finished before kill %d (%d items): make it bigger", kill, at)
		}
		t.Logf("kill %d: SIGKILL with %d of %d items harvested", kill, at, want)
	}
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	// The surviving workers' reapers give the killed workers' tasks back
	// once their heartbeats expire (worker/reaper.go: about 5 s); asynq's
	// own lease recovery (30 s leases, a recoverer each minute) is the
	// fallback. The bound leaves room for a loaded machine.
	p.recovered("two worker kills", requestID, ctrID, want, killed, 2*time.Minute)
	p.checkExactlyOnce(requestID, ctrID, want, sha)
}

// recovered waits until the job is complete and search has every file of
// the container, and reports how long that took after the fault ended:
// until the next item was harvested, until the job was complete, until
// search had converged.
func (p *platform) recovered(fault, requestID, ctrID string, want int64, faultEnded time.Time, within time.Duration) {
	t := p.t
	t.Helper()
	before := p.harvestEnds(requestID)
	deadline := faultEnded.Add(within)
	var progress, complete, converged time.Duration
	var job models.Job
	for {
		now := time.Now()
		n := p.harvestEnds(requestID)
		if progress == 0 && (n > before || n == want) {
			progress = now.Sub(faultEnded)
		}
		p.db.Where("request_id = ?", requestID).Take(&job)
		if complete == 0 && job.WalkComplete && n == want && job.IndexedCount == want {
			complete = now.Sub(faultEnded)
		}
		if complete != 0 && p.searchHas(ctrID) == want && p.outboxDepth() == 0 {
			converged = now.Sub(faultEnded)
			break
		}
		if now.After(deadline) {
			t.Fatalf("%s: not recovered within %s: job %+v, %d harvestend, search has %d, outbox %d; tasks: %s; errors: %s",
				fault, within, job, n, p.searchHas(ctrID), p.outboxDepth(), p.taskStates(), p.harvestErrors(requestID))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("recovery after %s: harvesting again after %s, job complete after %s, search converged after %s",
		fault, progress.Round(10*time.Millisecond), complete.Round(10*time.Millisecond), converged.Round(10*time.Millisecond))
}

// harvestErrors lists the errors the job's activity rows recorded (the
// first few), so that a job that does not finish says why.
func (p *platform) harvestErrors(requestID string) string {
	var rows []models.Activity
	p.db.Where("request_id = ? AND error <> ''", requestID).Order("id").Limit(5).Find(&rows)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s %s %s: %s", r.Kind, r.ItemID, r.Name, r.Error))
	}
	return strings.Join(out, "; ")
}

// taskStates says how many of the platform's tasks each queue holds in
// each state, so that a job that does not finish says where its tasks are.
func (p *platform) taskStates() string {
	in := asynq.NewInspector(p.opt)
	defer in.Close()
	var out []string
	for _, q := range (queue.Names{Namespace: p.ns}).All() {
		i, err := in.GetQueueInfo(q)
		if errors.Is(err, asynq.ErrQueueNotFound) {
			continue
		} else if err != nil {
			out = append(out, q+": "+err.Error())
			continue
		}
		out = append(out, fmt.Sprintf("%s: %d pending, %d active, %d scheduled, %d retry, %d archived, %d completed",
			q, i.Pending, i.Active, i.Scheduled, i.Retry, i.Archived, i.Completed))
	}
	return strings.Join(out, "; ")
}

// searchHas counts the container's documents in the search index.
func (p *platform) searchHas(ctrID string) int64 {
	var n int64
	p.db.Raw(`SELECT count(*) FROM search_documents WHERE container_id = ?`, ctrID).Scan(&n)
	return n
}

func (p *platform) outboxDepth() int64 {
	var n int64
	p.db.Raw(`SELECT count(*) FROM search_outbox`).Scan(&n)
	return n
}

// checkExactlyOnce waits for every queue to drain (a task whose batch was
// committed before its worker died comes back and must change nothing),
// then checks the rows: one harvestend per item, exact job and container
// counters, every result and hash, and search agreeing.
func (p *platform) checkExactlyOnce(requestID, ctrID string, want int64, sha map[string]string) {
	t := p.t
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	insp := asynq.NewInspector(p.opt)
	defer insp.Close()
	for _, q := range (queue.Names{Namespace: p.ns}).All() {
		for {
			info, err := insp.GetQueueInfo(q)
			if err != nil || info.Pending+info.Active+info.Retry+info.Scheduled == 0 {
				if err == nil && info.Archived != 0 {
					t.Fatalf("queue %s archived tasks: %+v", q, info)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("queue %s not drained: %+v", q, info)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	var job models.Job
	p.db.Where("request_id = ?", requestID).Take(&job)
	if p.harvestEnds(requestID) != want || job.IndexedCount != want {
		t.Fatalf("after the queues drained: %+v, %d harvestend", job, p.harvestEnds(requestID))
	}
	if job.WalkedCount != want || job.EnqueuedCount != want || job.ErrorCount != 0 {
		t.Fatalf("job counts: %+v", job)
	}
	var ctr models.Container
	p.db.Where("id = ?", ctrID).Take(&ctr)
	if ctr.HarvestSuccessCount != want || ctr.HarvestFailureCount != 0 {
		t.Fatalf("container counters: %d harvested, %d failed; want %d and 0", ctr.HarvestSuccessCount, ctr.HarvestFailureCount, want)
	}
	var perItem []struct {
		ItemID string
		N      int
	}
	p.db.Raw(`SELECT item_id, count(*) AS n FROM activities WHERE request_id = ? AND kind = 'harvestend' GROUP BY item_id HAVING count(*) <> 1`, requestID).Scan(&perItem)
	if len(perItem) != 0 {
		t.Fatalf("items harvested more than once: %v", perItem)
	}
	var results, items int64
	var all []models.Item
	p.db.Where("deleted_at IS NULL").Find(&all)
	items = int64(len(all))
	for _, it := range all {
		for _, run := range it.Runs() {
			if run.RequestID == requestID && run.Error == "" {
				results++
			}
		}
	}
	if items != want || results != 3*want {
		t.Fatalf("%d items, %d results; want %d and %d", items, results, want, 3*want)
	}
	if n := p.searchHas(ctrID); n != want || p.outboxDepth() != 0 {
		t.Fatalf("search has %d documents (want %d), outbox %d", n, want, p.outboxDepth())
	}
	p.checkHashes(sha)
}

func randomFiles(t *testing.T, n, size int, put func(name string, data []byte)) map[string]string {
	sha := map[string]string{}
	for i := 0; i < n; i++ {
		b := make([]byte, size)
		rand.Read(b)
		name := fmt.Sprintf("dir%02d/file%05d.bin", i%10, i)
		put(name, b)
		sha[name] = sha256hex(b)
	}
	return sha
}

func TestWorkerKilledMidHarvestFilesystem(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	root := t.TempDir()
	const n = 1500
	sha := randomFiles(t, n, 4096, func(name string, data []byte) {
		path := filepath.Join(root, "media", name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	loc := models.Location{ID: "fs", Kind: "filesystem", Name: "fs", Config: models.MustJSON(map[string]string{"path": root})}
	ctr := models.Container{ID: models.ContainerID("fs", "media"), LocationID: "fs", Name: "media"}
	p.db.Create(&loc)
	p.db.Create(&ctr)
	p.killMidHarvest(p.startJob(loc.ID, ctr.ID), ctr.ID, n, sha)
}

func TestWorkerKilledMidHarvestS3(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := testbucket.Shared(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	const n = 600
	sha := randomFiles(t, n, 2048, func(name string, data []byte) { srv.PutObject(t, bucket, name, data) })
	loc, ctr := p.s3Location(srv.Endpoint, srv.AccessKey, srv.SecretKey, bucket)
	req := p.startJob(loc.ID, ctr.ID)
	p.killMidHarvest(req, ctr.ID, n, sha)
	var downloads int64
	p.db.Model(&models.Activity{}).Where("request_id = ? AND kind = 'harvestdownload'", req).Count(&downloads)
	if downloads != n {
		t.Fatalf("harvestdownload rows: %d, want %d", downloads, n)
	}
}

func sha256hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// wipeQueues deletes every Redis key of the platform's namespace, as a
// Redis restarting without persistence would lose them.
func (p *platform) wipeQueues() int {
	p.t.Helper()
	opt, err := redis.ParseURL(testredis.URL())
	if err != nil {
		p.t.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	var keys []string
	iter := c.Scan(ctx, 0, "*"+p.ns+"*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if len(keys) > 0 {
		c.Del(ctx, keys...)
	}
	return len(keys)
}

// Tasks lost with Redis (no persistence) mid-harvest: the scheduler finds
// the stalled job and re-enqueues it; every file is harvested exactly once.
func TestRedisLossMidHarvestRepaired(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	root := t.TempDir()
	const n = 1200
	sha := randomFiles(t, n, 1024, func(name string, data []byte) {
		path := filepath.Join(root, "media", name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	p.db.Create(&models.Location{ID: "fs", Kind: "filesystem", Name: "fs", Config: models.MustJSON(map[string]string{"path": root})})
	ctr := models.Container{ID: models.ContainerID("fs", "media"), LocationID: "fs", Name: "media"}
	p.db.Create(&ctr)
	req := p.startJob("fs", ctr.ID)
	w := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=1"))
	deadline := time.Now().Add(3 * time.Minute)
	for p.harvestEnds(req) < n/10 {
		if time.Now().After(deadline) || w.Exited() {
			t.Fatal("worker made no progress")
		}
		time.Sleep(10 * time.Millisecond)
	}
	wiped := p.wipeQueues()
	at := p.harvestEnds(req)
	if at >= n {
		t.Fatalf("the job finished before Redis lost its tasks (%d): make it bigger", at)
	}
	t.Logf("wiped %d keys with %d of %d files harvested", wiped, at, n)
	testproc.Start(t, "scheduler", p.env("JOB_STALL_TIMEOUT=3", "HARVEST_REFRESH_TIME=3600"))
	deadline = time.Now().Add(3 * time.Minute)
	var job models.Job
	for {
		p.db.Where("request_id = ?", req).Take(&job)
		if job.WalkComplete && p.harvestEnds(req) == n && job.IndexedCount == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job not repaired: %+v, %d harvestend", job, p.harvestEnds(req))
		}
		time.Sleep(200 * time.Millisecond)
	}
	var dup int64
	p.db.Raw(`SELECT count(*) FROM (SELECT item_id FROM activities WHERE request_id = ? AND kind = 'harvestend' GROUP BY item_id HAVING count(*) > 1) d`, req).Scan(&dup)
	if dup != 0 || job.WalkedCount != n || job.ErrorCount != 0 {
		t.Fatalf("after repair: %d duplicated items, job %+v", dup, job)
	}
	p.checkHashes(sha)
}

// checkHashes compares every item's sha256 with the one computed when the
// file was written.
func (p *platform) checkHashes(sha map[string]string) {
	p.t.Helper()
	var rows []models.Item
	p.db.Find(&rows)
	if len(rows) != len(sha) {
		p.t.Fatalf("%d items, %d files", len(rows), len(sha))
	}
	for _, it := range rows {
		var meta struct {
			Hashes struct {
				SHA256 string `json:"sha256"`
			} `json:"hashes"`
		}
		json.Unmarshal(it.Metadata, &meta)
		if meta.Hashes.SHA256 != sha[it.Path] {
			p.t.Fatalf("%s: sha256 %q, want %q", it.Path, meta.Hashes.SHA256, sha[it.Path])
		}
	}
}
