package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/models"
)

// The S3 server killed (SIGKILL) mid-harvest of a bucket and started again
// two seconds later: requests in flight fail, minio-go retries them with
// backoff and jitter, tasks whose retries ran out fail and are retried by
// the queue, objects cut off mid-stream are read again; in the end every
// object is harvested exactly once, with its right hashes, and searchable.
func TestS3ServerRestartMidHarvest(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := testbucket.StartRestartable(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	const small, large = 800, 3
	sha := randomFiles(t, small, 1024, func(name string, data []byte) { srv.PutObject(t, bucket, name, data) })
	// Large objects (streamed, not read into memory) among the small ones,
	// in the middle of the listing.
	for name, h := range randomFiles(t, large, 6<<20, func(name string, data []byte) {
		srv.PutObject(t, bucket, "dir04/large-"+name[len("dir00/"):], data)
	}) {
		sha["dir04/large-"+name[len("dir00/"):]] = h
	}
	const n = small + large
	loc, ctr := p.s3Location(srv.Endpoint, srv.AccessKey, srv.SecretKey, bucket)
	req := p.startJob(loc.ID, ctr.ID)
	// Few objects in flight, so that the kill lands mid-harvest whatever
	// the machine's speed.
	w := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2", "REMOTE_CONCURRENCY=2"))
	p.waitFor(req, n/5, w)
	srv.Kill()
	at := p.harvestEnds(req)
	if at >= n {
		t.Fatalf("the job finished before the S3 server was killed (%d): make it bigger", at)
	}
	// Two seconds down: longer than minio-go's retries of one request.
	downUntil := time.Now().Add(2 * time.Second)
	for time.Now().Before(downUntil) {
		if w.Exited() {
			t.Fatalf("the worker exited while S3 was down:\n%s", w.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	t.Logf("S3 server killed (SIGKILL) for 2s with %d of %d objects harvested", at, n)
	p.recovered("an S3 server restart", req, ctr.ID, n, back, 2*time.Minute)
	p.checkExactlyOnce(req, ctr.ID, n, sha)
	if w.Exited() {
		t.Fatal("the worker exited")
	}
}

// The bucket disappears mid-harvest (its directory moved away from the S3
// server's posix backend, so that the server answers NoSuchBucket) and
// comes back three seconds later: a missing bucket is no deleted object,
// so the items it failed are retried, not marked gone; in the end every
// object is harvested exactly once, none deleted, and all searchable.
func TestS3BucketGoneMidHarvest(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := testbucket.Start(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	const n = 600
	sha := randomFiles(t, n, 1024, func(name string, data []byte) { srv.PutObject(t, bucket, name, data) })
	loc, ctr := p.s3Location(srv.Endpoint, srv.AccessKey, srv.SecretKey, bucket)
	req := p.startJob(loc.ID, ctr.ID)
	w := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2", "REMOTE_CONCURRENCY=2"))
	p.waitFor(req, n/5, w)
	dir, away := filepath.Join(srv.Dir, bucket), filepath.Join(srv.Dir, "."+bucket+"-away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	at := p.harvestEnds(req)
	if at >= n {
		t.Fatalf("the job finished before the bucket went (%d): make it bigger", at)
	}
	time.Sleep(3 * time.Second)
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	var deleted int64
	p.db.Model(&models.Item{}).Where("deleted_at IS NOT NULL").Count(&deleted)
	t.Logf("bucket gone for 3s with %d of %d objects harvested; %d items marked deleted meanwhile", at, n, deleted)
	p.recovered("a bucket gone for 3 s", req, ctr.ID, n, back, 2*time.Minute)
	p.checkExactlyOnce(req, ctr.ID, n, sha)
	if deleted != 0 {
		t.Errorf("%d items were marked deleted while their bucket was missing", deleted)
	}
	if w.Exited() {
		t.Fatal("the worker exited")
	}
}

// s3Location records a location of kind s3 on the bucket (path-style, as
// the test server wants) and its container.
func (p *platform) s3Location(endpoint, accessKey, secretKey, bucket string) (models.Location, models.Container) {
	p.t.Helper()
	loc := models.Location{ID: "s3", Kind: "s3", Name: "s3", Config: models.MustJSON(map[string]string{
		"endpoint": endpoint, "bucket": bucket, "access_key_id": accessKey, "secret_access_key": secretKey,
		"path_style": "true", "region": "us-east-1"})}
	ctr := models.Container{ID: models.ContainerID("s3", bucket), LocationID: "s3", Name: bucket}
	if err := p.db.Create(&loc).Error; err != nil {
		p.t.Fatal(err)
	}
	if err := p.db.Create(&ctr).Error; err != nil {
		p.t.Fatal(err)
	}
	return loc, ctr
}

// The bucket is missing when the harvest starts and is back two seconds
// later: the walk tries its page again a few times before it gives up, so
// the job harvests every object, with no error.
func TestS3BucketBackSoonAfterTheWalkStarts(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := testbucket.Start(t)
	bucket := testbucket.BucketName(t)
	srv.CreateBucket(t, bucket)
	const n = 40
	sha := randomFiles(t, n, 1024, func(name string, data []byte) { srv.PutObject(t, bucket, name, data) })
	loc, ctr := p.s3Location(srv.Endpoint, srv.AccessKey, srv.SecretKey, bucket)
	dir, away := filepath.Join(srv.Dir, bucket), filepath.Join(srv.Dir, "."+bucket+"-away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	req := p.startJob(loc.ID, ctr.ID)
	w := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=2"))
	// Until the walk has met the missing bucket.
	deadline := time.Now().Add(time.Minute)
	for !p.walkRan() {
		if time.Now().After(deadline) {
			t.Fatal("the walk did not run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	p.recovered("a bucket missing at the start", req, ctr.ID, n, time.Now(), time.Minute)
	p.checkExactlyOnce(req, ctr.ID, n, sha)
	var job models.Job
	p.db.Where("request_id = ?", req).Take(&job)
	if job.ErrorCount != 0 {
		t.Errorf("job %+v: errors %s", job, p.harvestErrors(req))
	}
	if w.Exited() {
		t.Fatal("the worker exited")
	}
}

// walkRan reports whether a walk task of the platform has run at least
// once (it is then waiting for a retry, done, or archived).
func (p *platform) walkRan() bool {
	in := asynq.NewInspector(p.opt)
	defer in.Close()
	q := (queue.Names{Namespace: p.ns}).Walk()
	for _, list := range []func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){in.ListRetryTasks, in.ListCompletedTasks, in.ListArchivedTasks} {
		if tasks, _ := list(q); len(tasks) > 0 {
			return true
		}
	}
	return false
}
