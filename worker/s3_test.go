package worker

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/metrics"
	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/internal/testredis"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// pathReader is an extractor that is not Inline: it needs the file at a
// path, and reports the path and the SHA-256 of what it found there.
type pathReader struct {
	mu    sync.Mutex
	paths map[string]map[string]bool // item -> paths seen
}

func (x *pathReader) Extract(_ context.Context, in *extractors.Input) (*extractors.Result, error) {
	b, err := os.ReadFile(in.Path)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	if x.paths[in.ItemID] == nil {
		x.paths[in.ItemID] = map[string]bool{}
	}
	x.paths[in.ItemID][in.Path] = true
	x.mu.Unlock()
	return &extractors.Result{Data: map[string]any{"sha256": sha256hex(b)}}, nil
}

// s3Fixture is a fixture whose container is a bucket of versitygw, reached
// through a counting proxy.
type s3Fixture struct {
	*fixture
	srv     testbucket.Server
	proxy   *testbucket.Proxy
	bucket  string
	objects map[string][]byte
}

func newS3Fixture(t *testing.T, reg *extractors.Registry) *s3Fixture {
	srv := testbucket.Start(t)
	proxy, err := testbucket.NewProxy(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	f := newFixture(t, reg)
	sf := &s3Fixture{fixture: f, srv: srv, proxy: proxy, bucket: testbucket.BucketName(t), objects: map[string][]byte{}}
	srv.CreateBucket(t, sf.bucket)
	f.loc = models.Location{ID: "s3loc", Kind: "s3", Name: "bucket", Config: models.MustJSON(map[string]string{
		"endpoint": proxy.Endpoint, "bucket": sf.bucket, "access_key_id": srv.AccessKey,
		"secret_access_key": srv.SecretKey, "path_style": "true", "region": "us-east-1"})}
	f.ctr = models.Container{ID: models.ContainerID("s3loc", sf.bucket), LocationID: "s3loc", Name: sf.bucket, Enabled: true}
	if err := f.db.Create(&f.loc).Error; err != nil {
		t.Fatal(err)
	}
	if err := f.db.Create(&f.ctr).Error; err != nil {
		t.Fatal(err)
	}
	return sf
}

func (f *s3Fixture) put(key string, size int) {
	b := make([]byte, size)
	_, _ = rand.Read(b)
	f.srv.PutObject(f.t, f.bucket, key, b)
	f.objects[key] = b
}

// checkHashes checks that every object is an item with the hashes of its
// bytes, harvested without error, and one harvestdownload row of its size
// for request req.
func (f *s3Fixture) checkHashes(req string) {
	f.t.Helper()
	var items []models.Item
	f.db.Where("container_id = ?", f.ctr.ID).Find(&items)
	if len(items) != len(f.objects) {
		f.t.Fatalf("%d items, want %d", len(items), len(f.objects))
	}
	for _, it := range items {
		var meta struct {
			Hashes struct {
				SHA256 string `json:"sha256"`
			} `json:"hashes"`
		}
		if err := json.Unmarshal(it.Metadata, &meta); err != nil {
			f.t.Fatal(err)
		}
		want := sha256hex(f.objects[it.Path])
		if meta.Hashes.SHA256 != want || it.HarvestFailed {
			f.t.Errorf("%s: sha256 %q failed %v, want %q", it.Path, meta.Hashes.SHA256, it.HarvestFailed, want)
		}
		var dl []models.Activity
		f.db.Where("request_id = ? AND item_id = ? AND kind = ?", req, it.ID, models.ActivityHarvestDownload).Find(&dl)
		if len(dl) != 1 || dl[0].Bytes != int64(len(f.objects[it.Path])) {
			f.t.Errorf("%s: harvestdownload rows %+v, want one of %d bytes", it.Path, dl, len(f.objects[it.Path]))
		}
	}
}

// Small objects are read into memory and large ones hashed as they stream
// in, each in one GET of its bytes, and nothing is written to disk while
// only Inline extractors run; an extractor that needs a path gets a file
// written once per object, from that same single GET.
func TestS3ObjectsReadOnce(t *testing.T) {
	t.Parallel()
	px := &pathReader{paths: map[string]map[string]bool{}}
	reg := testRegistry(t)
	for _, name := range []string{"path_a", "path_b"} {
		reg.MustRegister(extractors.Info{Name: name, Family: extractors.FamilyTechnical, DisplayName: name, Version: "1",
			Implemented: true, DefaultEnabled: true, New: func(extractors.Env) (extractors.Extractor, error) { return px, nil }})
	}
	f := newS3Fixture(t, reg)
	for i := range 40 {
		f.put(fmt.Sprintf("small/%02d.bin", i), 4<<10)
	}
	f.put("empty.bin", 0)
	f.put("edge.bin", storage.ContentLimit)
	f.put("large/a.bin", 3<<20+17)
	f.put("large/b.bin", storage.ContentLimit+1)
	f.startWorker()

	req := f.harvest(jobs.Spec{Extractors: []string{"mime_type", "hashes"}, OverrideExtractors: true})
	f.waitJob(req, time.Minute)
	f.checkHashes(req)
	if _, err := os.Stat(filepath.Join(f.deps.Config.DataDir, "tmp")); !os.IsNotExist(err) {
		t.Errorf("a temporary file was made while only Inline extractors ran (tmp dir: %v)", err)
	}
	for key, b := range f.objects {
		if got := f.proxy.Sent(f.bucket, key); got != int64(len(b)) {
			t.Errorf("%s: %d bytes sent, want %d (one read)", key, got, len(b))
		}
	}

	// Two extractors that need a path: one file per object, written from
	// one GET, seen by both.
	f.proxy.Reset()
	req = f.harvest(jobs.Spec{Extractors: []string{"mime_type", "hashes", "path_a", "path_b"}, OverrideExtractors: true, Force: true, IgnoreRecentlyWalked: true})
	f.waitJob(req, time.Minute)
	f.checkHashes(req)
	for key, b := range f.objects {
		if got := f.proxy.Sent(f.bucket, key); got != int64(len(b)) {
			t.Errorf("%s: %d bytes sent with a path needed, want %d (one read)", key, got, len(b))
		}
		id := models.ItemID(f.ctr.ID, key)
		if len(px.paths[id]) != 1 {
			t.Errorf("%s: path extractors saw %d files, want one: %v", key, len(px.paths[id]), px.paths[id])
		}
		var it models.Item
		f.db.Where("id = ?", id).Take(&it)
		var meta map[string]struct {
			SHA256 string `json:"sha256"`
		}
		_ = json.Unmarshal(it.Metadata, &meta)
		if meta["path_a"].SHA256 != sha256hex(b) || meta["path_b"].SHA256 != sha256hex(b) {
			t.Errorf("%s: the file at the path is not the object: %+v", key, meta)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(f.deps.Config.DataDir, "tmp")); len(entries) != 0 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// S3 answering SlowDown is retried with backoff, and the attempts are
// counted in metaharvest_s3_retries_total, the walk's listings' as the
// objects' reads; the harvest ends complete.
func TestS3SlowDownRetriedAndCounted(t *testing.T) {
	t.Parallel()
	f := newS3Fixture(t, nil)
	rdbOpt, err := redis.ParseURL(testredis.URL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(rdbOpt)
	t.Cleanup(func() { rdb.Close() })
	f.deps.Metrics = metrics.NewRecorder(metrics.RecorderConfig{Redis: rdb, Namespace: f.deps.Config.RedisNamespace, Role: "worker"})
	for i := range 10 {
		f.put(fmt.Sprintf("o%02d.bin", i), 1000+i)
	}
	f.put("large.bin", 1<<20)
	// The first GET of each object is refused, and the walk's first
	// listing.
	var seen sync.Map
	var refused atomic.Int64
	f.proxy.SlowDown(func(r *http.Request) bool {
		key := r.URL.Path
		if r.URL.Query().Get("list-type") == "2" {
			key = "list"
		} else if !strings.HasSuffix(r.URL.Path, ".bin") {
			return false
		}
		if r.Method != http.MethodGet {
			return false
		}
		if _, again := seen.LoadOrStore(key, true); again {
			return false
		}
		refused.Add(1)
		return true
	})
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"mime_type", "hashes"}, OverrideExtractors: true})
	job := f.waitJob(req, time.Minute)
	if job.ErrorCount != 0 {
		t.Fatalf("job: %+v", job)
	}
	f.checkHashes(req)
	if refused.Load() != int64(len(f.objects))+1 {
		t.Fatalf("refused %d GETs, want %d objects' and a listing", refused.Load(), len(f.objects))
	}
	// The worker flushes its recorder too: poll the totals.
	field := "c\x1f" + metrics.S3Retries + "\x1fslow_down"
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := f.deps.Metrics.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		got, err := rdb.HGet(context.Background(), metrics.TotalsKey(f.deps.Config.RedisNamespace), field).Float64()
		if err == nil && got == float64(refused.Load()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("s3 retries counted: %v (%v), want %d", got, err, refused.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A large video harvested with extractors that read ranges (mediainfo:
// ffprobe and the MP4 box walk) is served to them by ranges on loopback:
// a small part of it is read, nothing is written to disk, and the result
// is the one a download gives.
func TestS3RangeReads(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed")
	}
	f := newS3Fixture(t, extractortest.Registry(t, nil, "store", "mime_type", "mediainfo"))
	// Ten minutes of stereo PCM in a QuickTime file, its index (moov) at
	// the end: ffprobe reads the start, seeks to the end, and reads a
	// little of the data. Written by ffmpeg straight into the server's
	// posix backend (an object without an ETag attribute).
	clip := filepath.Join(f.srv.Dir, f.bucket, "clip.mov")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "anoisesrc=d=600:r=48000", "-ac", "2",
		"-c:a", "pcm_s16le", clip).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	fi, err := os.Stat(clip)
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"mediainfo"}, OverrideExtractors: true})
	if job := f.waitJob(req, time.Minute); job.ErrorCount != 0 {
		t.Fatalf("job: %+v", job)
	}
	var it models.Item
	f.db.Where("container_id = ? AND path = ?", f.ctr.ID, "clip.mov").Take(&it)
	var meta struct {
		Mediainfo struct {
			Duration    float64 `json:"duration"`
			StreamCount int     `json:"stream_count"`
		} `json:"mediainfo"`
	}
	if err := json.Unmarshal(it.Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Mediainfo.Duration < 599.9 || meta.Mediainfo.Duration > 600.1 || meta.Mediainfo.StreamCount != 1 {
		t.Fatalf("mediainfo through ranges: %s", it.Metadata)
	}
	sent := f.proxy.Sent(f.bucket, "clip.mov")
	t.Logf("%d of %d bytes read (%.2f%%)", sent, size, 100*float64(sent)/float64(size))
	if sent > size/20 {
		t.Errorf("%d of %d bytes read: not a small part", sent, size)
	}
	var dl models.Activity
	f.db.Where("request_id = ? AND item_id = ? AND kind = ?", req, it.ID, models.ActivityHarvestDownload).Take(&dl)
	if dl.Bytes != sent {
		t.Errorf("harvestdownload says %d bytes, the server sent %d", dl.Bytes, sent)
	}
	if _, err := os.Stat(filepath.Join(f.deps.Config.DataDir, "tmp")); !os.IsNotExist(err) {
		t.Errorf("a temporary file was made for extractors that read ranges (tmp dir: %v)", err)
	}
}

// The files of an item task are read REMOTE_CONCURRENCY at a time from
// remote storage, whatever the number of CPUs.
func TestS3RemoteConcurrency(t *testing.T) {
	t.Parallel()
	f := newS3Fixture(t, nil)
	// More than the CPUs, which bounded local files' concurrency.
	limit := 2*runtime.NumCPU() + 3
	f.deps.Config.RemoteConcurrency = limit
	for i := range 2 * limit {
		f.put(fmt.Sprintf("o%02d.bin", i), 100)
	}
	// The objects' GETs wait until more than the CPUs are in flight at once
	// (a worker bounded by the CPUs would never get there: each of its GETs
	// then waits 20 s), so that the overlap does not depend on the
	// machine's load, as it did with a delay on each request.
	f.proxy.HoldObjectGets(runtime.NumCPU()+1, 20*time.Second)
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"mime_type", "hashes"}, OverrideExtractors: true})
	f.waitJob(req, 5*time.Minute)
	f.checkHashes(req)
	// One task of all the files: the walk's listing is done before it starts.
	if got := f.proxy.MaxGets(); got > limit || got <= runtime.NumCPU() {
		t.Fatalf("at most %d GETs at once, want up to REMOTE_CONCURRENCY=%d and more than the %d CPUs", got, limit, runtime.NumCPU())
	}
}
