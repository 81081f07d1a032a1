package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testredis"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
)

// fixture is one isolated platform with a filesystem location whose
// container "media" is a temp directory.
type fixture struct {
	t       *testing.T
	deps    Deps
	db      *gorm.DB
	root    string // location path
	media   string // container directory
	loc     models.Location
	ctr     models.Container
	starter *jobs.Starter
}

func newFixture(t *testing.T, reg *extractors.Registry) *fixture {
	t.Helper()
	cfg, err := config.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.RedisURL = testredis.URL()
	cfg.RedisNamespace = testredis.Namespace(t)
	cfg.DataDir = t.TempDir()
	cfg.WorkerConcurrency = 4
	// The extractors' time limit only ends a hang: under the race
	// detector, on a busy machine, ffmpeg and the vision sidecar take
	// many times what they take alone.
	cfg.ExtractorTimeout = extractortest.RunLimit
	db := testdb.New(t)
	opt, err := queue.RedisOpt(cfg.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	client := asynq.NewClient(opt)
	t.Cleanup(func() { client.Close() })
	if reg == nil {
		// The base extractors only: tests count activity rows, and every
		// family linked into this test binary (extractors/families) would
		// add its own for the files it accepts.
		reg = extractortest.Registry(t, nil, "store", "mime_type", "hashes")
	}
	f := &fixture{t: t, db: db, root: t.TempDir(),
		deps: Deps{Config: cfg, DB: db, Queue: client, RedisOpt: opt, Extractors: reg}}
	f.media = filepath.Join(f.root, "media")
	if err := os.MkdirAll(f.media, 0o755); err != nil {
		t.Fatal(err)
	}
	f.loc = models.Location{ID: "loc1", Kind: "filesystem", Name: "Archive", Config: models.MustJSON(map[string]string{"path": f.root})}
	f.ctr = models.Container{ID: models.ContainerID("loc1", "media"), LocationID: "loc1", Name: "media", Enabled: true}
	if err := db.Create(&f.loc).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&f.ctr).Error; err != nil {
		t.Fatal(err)
	}
	f.starter = &jobs.Starter{DB: db, Queue: client, Names: queue.Names{Namespace: cfg.RedisNamespace}, Registry: reg}
	return f
}

// startWorker runs an in-process worker until the test ends.
func (f *fixture) startWorker() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, f.deps) }()
	f.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			f.t.Errorf("worker: %v", err)
		}
	})
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.media, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// drained drains the search outbox into a Postgres search engine over the
// fixture's database and returns the engine, for tests that search what
// the worker harvested.
func (f *fixture) drained() *postgres.Engine {
	f.t.Helper()
	eng, err := postgres.New(f.db)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := search.Drain(context.Background(), f.db, eng, 100); err != nil {
		f.t.Fatal(err)
	}
	return eng
}

// copySample copies a sample file of the extractors (a path below
// extractors/) into the container at rel.
func (f *fixture) copySample(sample, rel string) {
	f.t.Helper()
	extractortest.CopyFile(f.t, filepath.Join("..", "extractors", sample), filepath.Join(f.media, rel))
}

func (f *fixture) harvest(spec jobs.Spec) string {
	f.t.Helper()
	spec.LocationID = f.loc.ID
	if spec.ItemID == "" {
		spec.ContainerID = f.ctr.ID
	}
	id, err := f.starter.Start(context.Background(), spec)
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

// mediaJobWait bounds the wait for a harvest that runs ffmpeg or the
// vision sidecar: it only catches a hang. The 30 s before were about ten
// times what such a harvest took under -race at a load of 12 on 2 cores:
// not much for ffmpeg and node, which a busier machine slows further.
const mediaJobWait = 5 * time.Minute

// waitJob polls until the walk is complete and every enqueued item has its
// harvestend record.
func (f *fixture) waitJob(requestID string, timeout time.Duration) models.Job {
	f.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		// Count first, then read the job: a batch committing in between
		// then shows in the job row too (it commits rows and counters at once).
		var ends int64
		f.db.Model(&models.Activity{}).Where("request_id = ? AND kind = 'harvestend'", requestID).Count(&ends)
		var job models.Job
		if err := f.db.Where("request_id = ?", requestID).Take(&job).Error; err != nil {
			f.t.Fatal(err)
		}
		if job.WalkComplete && ends >= job.EnqueuedCount {
			return job
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("job %s not done after %s: %+v, %d harvestend", requestID, timeout, job, ends)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (f *fixture) count(model any, where string, args ...any) int64 {
	f.t.Helper()
	var n int64
	if err := f.db.Model(model).Where(where, args...).Count(&n).Error; err != nil {
		f.t.Fatal(err)
	}
	return n
}

func sha256hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestHarvestFolderThenOnlyChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.copySample("testdata/exif.jpg", "photos/exif.jpg")
	f.copySample("testdata/sample.mov", "clips/sample.mov")
	f.copySample("testdata/sample.docx", "docs/sample.docx")
	f.copySample("testdata/pluck-pcm16.wav", "audio.wav")
	f.write("notes/readme.txt", "hello metaharvest\n")
	f.write("empty.bin", "")
	f.startWorker()

	req := f.harvest(jobs.Spec{})
	job := f.waitJob(req, time.Minute)
	if job.WalkedCount != 6 || job.EnqueuedCount != 6 || job.IndexedCount != 6 || job.ErrorCount != 0 {
		t.Fatalf("job counts: %+v", job)
	}
	var items []models.Item
	f.db.Where("container_id = ?", f.ctr.ID).Order("path").Find(&items)
	if len(items) != 6 {
		t.Fatalf("%d items", len(items))
	}
	wantMime := map[string]string{"photos/exif.jpg": "image/jpeg", "clips/sample.mov": "video/quicktime",
		"notes/readme.txt": "text/plain", "audio.wav": "audio/wav"}
	for _, it := range items {
		b, err := os.ReadFile(filepath.Join(f.media, it.Path))
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Hashes struct {
				SHA256 string `json:"sha256"`
			} `json:"hashes"`
			Store map[string]any `json:"store"`
		}
		if err := json.Unmarshal(it.Metadata, &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Hashes.SHA256 != sha256hex(b) {
			t.Errorf("%s: sha256 %q, want %q", it.Path, meta.Hashes.SHA256, sha256hex(b))
		}
		if meta.Store == nil || it.HarvestedETag != it.ETag || it.LastHarvested == nil || it.HarvestFailed {
			t.Errorf("%s: item state %+v", it.Path, it)
		}
		if want, ok := wantMime[it.Path]; ok && (len(it.MimeType) < len(want) || it.MimeType[:len(want)] != want) {
			t.Errorf("%s: mime %q, want %q", it.Path, it.MimeType, want)
		}
		if it.ID != models.ItemID(f.ctr.ID, it.Path) || len(it.ID) != 32 {
			t.Errorf("%s: id %q", it.Path, it.ID)
		}
	}
	if n := f.count(&models.Activity{}, "request_id = ? AND kind = 'harvestend'", req); n != 6 {
		t.Fatalf("harvestend rows: %d", n)
	}
	if n := f.count(&models.Activity{}, "request_id = ? AND kind = 'extractor' AND error <> ''", req); n != 0 {
		t.Fatalf("extractor errors: %d", n)
	}
	var ctr models.Container
	f.db.Where("id = ?", f.ctr.ID).Take(&ctr)
	if ctr.Version != 1 || ctr.HarvestSuccessCount != 6 || ctr.LastHarvested == nil || ctr.RequestID != req {
		t.Fatalf("container after first harvest: %+v", ctr)
	}
	if n := f.count(&models.Item{}, "1=1"); n != 6 {
		t.Fatalf("items: %d", n)
	}

	// Nothing changed: a walk without force harvests nothing.
	req2 := f.harvest(jobs.Spec{IgnoreRecentlyWalked: true})
	job2 := f.waitJob(req2, time.Minute)
	if job2.WalkedCount != 6 || job2.EnqueuedCount != 0 || job2.IndexedCount != 0 {
		t.Fatalf("unchanged harvest: %+v", job2)
	}

	// One file changed, one removed, one added.
	f.write("notes/readme.txt", "hello again, changed\n")
	if err := os.Remove(filepath.Join(f.media, "empty.bin")); err != nil {
		t.Fatal(err)
	}
	f.write("new.txt", "new file")
	req3 := f.harvest(jobs.Spec{IgnoreRecentlyWalked: true})
	job3 := f.waitJob(req3, time.Minute)
	if job3.WalkedCount != 6 || job3.EnqueuedCount != 2 || job3.IndexedCount != 2 {
		t.Fatalf("changed harvest: %+v", job3)
	}
	var gone models.Item
	f.db.Where("path = ?", "empty.bin").Take(&gone)
	if gone.DeletedAt == nil {
		t.Fatal("removed file not marked deleted")
	}
	f.db.Where("id = ?", f.ctr.ID).Take(&ctr)
	if ctr.Version != 3 {
		t.Fatalf("container version %d, want 3", ctr.Version)
	}

	// Walked recently and not ignored: skipped.
	req4 := f.harvest(jobs.Spec{Force: true})
	job4 := f.waitJob(req4, time.Minute)
	if job4.WalkedCount != 0 || job4.EnqueuedCount != 0 || !job4.WalkComplete {
		t.Fatalf("recent walk not skipped: %+v", job4)
	}
}

func TestWalkPagesAndPriorities(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for i := 0; i < 23; i++ {
		f.write(fmt.Sprintf("d%d/f%02d.txt", i%3, i), fmt.Sprintf("file %d", i))
	}
	f.startWorkerWithPageSize(5)
	req := f.harvest(jobs.Spec{Priority: 1, Extractors: []string{"hashes"}})
	job := f.waitJob(req, time.Minute)
	if job.WalkedCount != 23 || job.IndexedCount != 23 || job.Priority != 1 {
		t.Fatalf("paged walk: %+v", job)
	}
	if n := f.count(&models.Activity{}, "request_id = ? AND kind = 'walk'", req); n != 5 {
		t.Fatalf("walk pages recorded: %d, want 5", n)
	}
	if fmt.Sprint(job.Extractors) != "[store mime_type hashes]" {
		t.Fatalf("extractors %v", job.Extractors)
	}
}

func (f *fixture) startWorkerWithPageSize(n int) {
	ctx, cancel := context.WithCancel(context.Background())
	h := NewHandler(f.deps)
	h.pageSize = n
	srv := asynq.NewServer(f.deps.RedisOpt, asynq.Config{Concurrency: 4, Queues: h.names.Weights(),
		Logger: asynqLogger{h.Logger}, LogLevel: asynq.WarnLevel, RetryDelayFunc: retryDelay})
	if err := srv.Start(h.Mux()); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { cancel(); srv.Shutdown(); h.Close() })
	_ = ctx
}

// failing extractors: a deterministic error and a panic are recorded once,
// with the MD5 of the message, and not retried.
type failing struct{ panics bool }

func (x failing) Extract(context.Context, *extractors.Input) (*extractors.Result, error) {
	if x.panics {
		panic("parser exploded")
	}
	return nil, errors.New("unsupported codec")
}

func testRegistry(t *testing.T) *extractors.Registry {
	reg := extractortest.Registry(t, nil, "store", "mime_type", "hashes")
	reg.MustRegister(extractors.Info{Name: "boom", Family: extractors.FamilyTechnical, DisplayName: "Boom", Version: "1", Implemented: true, DefaultEnabled: true,
		New: func(extractors.Env) (extractors.Extractor, error) { return failing{}, nil }})
	reg.MustRegister(extractors.Info{Name: "panicky", Family: extractors.FamilyTechnical, DisplayName: "Panicky", Version: "1", Implemented: true, DefaultEnabled: true,
		New: func(extractors.Env) (extractors.Extractor, error) { return failing{panics: true}, nil }})
	return reg
}

func TestExtractorErrorsRecordedNotRetried(t *testing.T) {
	t.Parallel()
	f := newFixture(t, testRegistry(t))
	f.write("a.txt", "a")
	f.write("b.txt", "b")
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"boom", "panicky", "hashes"}})
	job := f.waitJob(req, time.Minute)
	if job.IndexedCount != 2 || job.ErrorCount != 2 {
		t.Fatalf("job: %+v", job)
	}
	var acts []models.Activity
	f.db.Where("request_id = ? AND kind = 'extractor' AND name = 'boom'", req).Find(&acts)
	if len(acts) != 2 {
		t.Fatalf("boom rows: %d", len(acts))
	}
	for _, a := range acts {
		if a.ErrorHash != errorHash(a.Error) || a.ErrorHash == "" {
			t.Fatalf("error hash of %q: %q", a.Error, a.ErrorHash)
		}
	}
	if n := f.count(&models.Activity{}, "request_id = ? AND name = 'panicky' AND error LIKE '%parser exploded%'", req); n != 2 {
		t.Fatalf("panic not recorded: %d", n)
	}
	var it models.Item
	f.db.Where("path = 'a.txt'").Take(&it)
	if !it.HarvestFailed || len(it.Metadata) == 0 {
		t.Fatalf("item: %+v", it)
	}
	var meta map[string]any
	json.Unmarshal(it.Metadata, &meta)
	if meta["hashes"] == nil || meta["boom"] != nil {
		t.Fatalf("metadata keeps successes only: %v", meta)
	}
	runs := it.Runs()
	if runs["boom"].Error != acts[0].Error || runs["boom"].RequestID != req || runs["hashes"].Error != "" ||
		runs["hashes"].Version != "1.0.0" || runs["panicky"].Error == "" || runs["hashes"].RanAt.IsZero() {
		t.Fatalf("results: %+v", runs)
	}
	var ctr models.Container
	f.db.Where("id = ?", f.ctr.ID).Take(&ctr)
	if ctr.HarvestFailureCount != 2 || ctr.LastHarvestedFailure == nil {
		t.Fatalf("container failure counters: %+v", ctr)
	}

	// A later harvest merges into the item: data of extractors it did not
	// run stays, data of one that now fails goes, results keep every run.
	f.db.Model(&models.Item{}).Where("id = ?", it.ID).Update("metadata", gorm.Expr(`metadata || '{"boom": {"old": 1}}'`))
	req2 := f.harvest(jobs.Spec{ItemID: it.ID, Force: true, Extractors: []string{"boom"}})
	f.waitJob(req2, time.Minute)
	var again models.Item
	f.db.Where("id = ?", it.ID).Take(&again)
	meta = nil
	json.Unmarshal(again.Metadata, &meta)
	if meta["hashes"] == nil || meta["store"] == nil || meta["boom"] != nil {
		t.Fatalf("metadata after a second harvest: %v", meta)
	}
	if r := again.Runs(); r["boom"].RequestID != req2 || r["hashes"].RequestID != req || r["boom"].Error == "" ||
		!r["hashes"].RanAt.Before(r["boom"].RanAt) || r["boom"].RanAt != *again.LastHarvested {
		t.Fatalf("results after a second harvest: %+v", r)
	}
}

// A task delivered twice leaves one set of rows.
func TestItemTaskIdempotent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.write("x.txt", "x")
	h := NewHandler(f.deps)
	t.Cleanup(func() { h.Close() })
	it := models.Item{ID: models.ItemID(f.ctr.ID, "x.txt"), LocationID: f.loc.ID, ContainerID: f.ctr.ID, Path: "x.txt", Name: "x.txt", Metadata: models.JSON("{}")}
	if err := f.db.Create(&it).Error; err != nil {
		t.Fatal(err)
	}
	req := f.harvest(jobs.Spec{ItemID: it.ID, Force: true})
	task, _ := queue.NewTask(queue.TypeItem, queue.ItemPayload{RequestID: req, ItemID: it.ID})
	for i := 0; i < 2; i++ {
		if err := h.Item(context.Background(), task); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	if n := f.count(&models.Activity{}, "request_id = ?", req); n != 4 { // 3 extractors + harvestend
		t.Fatalf("activity rows: %d", n)
	}
	var stored models.Item
	f.db.Where("id = ?", it.ID).Take(&stored)
	if runs := stored.Runs(); len(runs) != 3 || runs["hashes"].RequestID != req || runs["hashes"].Error != "" {
		t.Fatalf("results: %+v", runs)
	}
	var job models.Job
	f.db.Where("request_id = ?", req).Take(&job)
	if job.IndexedCount != 1 {
		t.Fatalf("indexed_count %d", job.IndexedCount)
	}
	// Unknown job: permanent failure, not a retry loop.
	bad, _ := queue.NewTask(queue.TypeItem, queue.ItemPayload{RequestID: "nope", ItemID: it.ID})
	if err := h.Item(context.Background(), bad); !errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("unknown job: %v", err)
	}
	garbage := asynq.NewTask(queue.TypeItem, []byte("{"))
	if err := h.Item(context.Background(), garbage); !errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("bad payload: %v", err)
	}
}

func TestCancelledJobDoesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.write("x.txt", "x")
	req := f.harvest(jobs.Spec{})
	f.db.Model(&models.Job{}).Where("request_id = ?", req).Update("cancelled", true)
	f.startWorker()
	// Give the worker a real chance to run the walk, then check nothing ran.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ins, _ := asynq.NewInspector(f.deps.RedisOpt).GetQueueInfo(f.starter.Names.Walk())
		if ins != nil && ins.Pending == 0 && ins.Active == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := f.count(&models.Activity{}, "request_id = ?", req); n != 0 {
		t.Fatalf("cancelled job recorded %d activities", n)
	}
}

// slow takes its time, so that two deliveries of one task overlap.
type slow struct{}

func (slow) Extract(ctx context.Context, _ *extractors.Input) (*extractors.Result, error) {
	select {
	case <-time.After(300 * time.Millisecond):
	case <-ctx.Done():
	}
	return &extractors.Result{Data: map[string]any{"slept": true}}, nil
}

// Two deliveries of one task at once (a lease expired while the first
// still ran) leave one set of rows, counted once.
func TestItemTaskConcurrentDeliveries(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t)
	reg.MustRegister(extractors.Info{Name: "slow", Family: extractors.FamilyTechnical, DisplayName: "Slow", Version: "1", Implemented: true, DefaultEnabled: true,
		New: func(extractors.Env) (extractors.Extractor, error) { return slow{}, nil }})
	f := newFixture(t, reg)
	f.write("x.txt", "x")
	f.write("y.txt", "y")
	h := NewHandler(f.deps)
	t.Cleanup(func() { h.Close() })
	var ids []string
	for _, p := range []string{"x.txt", "y.txt"} {
		it := models.Item{ID: models.ItemID(f.ctr.ID, p), LocationID: f.loc.ID, ContainerID: f.ctr.ID, Path: p, Name: p, Metadata: models.JSON("{}")}
		if err := f.db.Create(&it).Error; err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	req := f.harvest(jobs.Spec{ItemID: ids[0], Force: true, Extractors: []string{"slow", "hashes"}})
	task, _ := queue.NewTask(queue.TypeItem, queue.ItemPayload{RequestID: req, ItemIDs: ids})
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- h.Item(context.Background(), task) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("delivery: %v", err)
		}
	}
	// store, mime_type, slow, hashes and harvestend for each item.
	if n := f.count(&models.Activity{}, "request_id = ?", req); n != 10 {
		t.Fatalf("activity rows: %d, want 10", n)
	}
	var job models.Job
	f.db.Where("request_id = ?", req).Take(&job)
	if job.IndexedCount != 2 {
		t.Fatalf("indexed_count: %d", job.IndexedCount)
	}
}

// A file the walk found no row for, made an item by another harvest before
// its batch ran (a first delivery does not look again), is stored as an
// item harvested again: this harvest's extractors replace their earlier
// data, runs and artifacts, the other extractors' stay with their own time
// and request, and the row is counted and searchable once.
func TestNewFileMadeAnItemMeanwhile(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.write("x.txt", "fresh content")
	h := NewHandler(f.deps)
	t.Cleanup(func() { h.Close() })
	earlier := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	id := models.ItemID(f.ctr.ID, "x.txt")
	other := models.Item{ID: id, LocationID: f.loc.ID, ContainerID: f.ctr.ID, Path: "x.txt", Name: "x.txt",
		Metadata:      models.JSON(`{"hashes": {"sha256": "stale"}, "old": {"k": "v"}}`),
		Results:       models.JSON(`{"hashes": "0.9", "old": "1"}`),
		LastHarvested: &earlier, LastRequestID: "other-request"}
	if err := f.db.Create(&other).Error; err != nil {
		t.Fatal(err)
	}
	stale := models.Artifact{ItemID: id, Path: "earlier/hashes/x.bin", Extractor: "hashes", Kind: "data"}
	if err := f.db.Create(&stale).Error; err != nil {
		t.Fatal(err)
	}
	req := f.harvest(jobs.Spec{Force: true}) // its walk is not run: the batch comes as the walk made it
	task, _ := queue.NewTask(queue.TypeItem, queue.ItemPayload{RequestID: req, ContainerID: f.ctr.ID,
		Files: []queue.FileEntry{{Path: "x.txt", Size: int64(len("fresh content")), Modified: time.Now()}}})
	if err := h.Item(context.Background(), task); err != nil {
		t.Fatal(err)
	}

	var got models.Item
	if err := f.db.Where("id = ?", id).Take(&got).Error; err != nil {
		t.Fatal(err)
	}
	var meta map[string]map[string]any
	if err := json.Unmarshal(got.Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if meta["hashes"]["sha256"] != sha256hex([]byte("fresh content")) || meta["old"]["k"] != "v" || meta["store"] == nil {
		t.Errorf("metadata: %s", got.Metadata)
	}
	runs := got.Runs()
	if runs["hashes"].RequestID != req || runs["hashes"].Version == "0.9" {
		t.Errorf("hashes run: %+v", runs["hashes"])
	}
	if runs["old"].RequestID != "other-request" || !runs["old"].RanAt.Equal(earlier) {
		t.Errorf("the other harvest's run: %+v", runs["old"])
	}
	if n := f.count(&models.Artifact{}, "item_id = ? AND path = ?", id, stale.Path); n != 0 {
		t.Errorf("the earlier run's artifact is still there")
	}
	if n := f.count(&models.Item{}, "container_id = ?", f.ctr.ID); n != 1 {
		t.Errorf("%d items", n)
	}
	var job models.Job
	f.db.Where("request_id = ?", req).Take(&job)
	if job.IndexedCount != 1 {
		t.Errorf("indexed_count %d", job.IndexedCount)
	}
	res, err := f.drained().Search(context.Background(), search.Request{Query: "", Limit: 10,
		Filters: &search.Filters{Terms: []search.Term{{Field: "hashes.sha256", Value: search.FlexString(sha256hex([]byte("fresh content")))}}}},
		search.Visibility{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalHits != 1 {
		t.Errorf("search by the new digest finds %d documents", res.TotalHits)
	}
}
