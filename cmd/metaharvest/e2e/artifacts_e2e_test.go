package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/models"
)

// Beyond one host: api and workers share no disk, only Postgres, Redis
// and a bucket that holds the artifacts and the upload store.

// dataBucket is a bucket of a test S3 server holding a platform's files.
type dataBucket struct {
	srv    testbucket.Server
	name   string
	client *minio.Client
}

func newDataBucket(t *testing.T, srv testbucket.Server) *dataBucket {
	name := testbucket.BucketName(t)
	srv.CreateBucket(t, name)
	return &dataBucket{srv: srv, name: name, client: srv.Client(t)}
}

// env are the DATA_BUCKET_* settings, and a DATA_DIR of the process's
// own: nothing on disk is shared.
func (b *dataBucket) env(t *testing.T, extra ...string) []string {
	return append([]string{"DATA_DIR=" + t.TempDir(), "DATA_BUCKET_ENDPOINT=" + b.srv.Endpoint, "DATA_BUCKET=" + b.name,
		"DATA_BUCKET_PREFIX=deploy", "DATA_BUCKET_REGION=us-east-1", "DATA_BUCKET_ACCESS_KEY_ID=" + b.srv.AccessKey,
		"DATA_BUCKET_SECRET_ACCESS_KEY=" + b.srv.SecretKey, "DATA_BUCKET_PATH_STYLE=true"}, extra...)
}

// dataDir is the DATA_DIR an env names.
func dataDir(env []string) string {
	for _, kv := range env {
		if d, ok := strings.CutPrefix(kv, "DATA_DIR="); ok {
			return d
		}
	}
	return ""
}

// keys lists the bucket's keys under deploy/<prefix>.
func (b *dataBucket) keys(t *testing.T, prefix string) []string {
	t.Helper()
	var out []string
	for obj := range b.client.ListObjectsIter(context.Background(), b.name, minio.ListObjectsOptions{Prefix: "deploy/" + prefix, Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		out = append(out, strings.TrimPrefix(obj.Key, "deploy/"))
	}
	return out
}

func (b *dataBucket) get(t *testing.T, key string) []byte {
	t.Helper()
	o, err := b.client.GetObject(context.Background(), b.name, "deploy/"+key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	data, err := io.ReadAll(o)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return data
}

// getRaw is a GET of the api with the client's token, body returned
// whatever the status.
func (c *client) getRaw(path string) (int, []byte, http.Header) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header
}

// mediaFolder writes sample files of every kind that makes artifacts:
// pictures (thumbnails; a face), videos (frames, previews, sprites), a
// recording (waveform, audio preview) and a PDF (page images).
func mediaFolder(t *testing.T) (root string, n int) {
	root = t.TempDir()
	samples := map[string]string{
		"pictures/exif.jpg": "extractors/testdata/exif.jpg", "pictures/frame.png": "extractors/testdata/video-001.png",
		"pictures/astronaut.png": "extractors/faces/testdata/astronaut.png", "pictures/tux.png": "extractors/images/testdata/tux.png",
		"pictures/sample1.jpg": "extractors/images/testdata/goexif-sample1.jpg", "video/clip.mp4": "extractors/video/testdata/mp4.mp4",
		"video/clip.mkv": "extractors/video/testdata/mkv-1s.mkv", "audio/pluck.wav": "extractors/testdata/pluck-pcm16.wav",
		"docs/multicell.pdf": "extractors/pdf/testdata/multicell.pdf",
	}
	for i := 1; i <= 8; i++ {
		samples[fmt.Sprintf("pictures/orientation_%d.jpg", i)] = fmt.Sprintf("extractors/images/testdata/orientation_%d.jpg", i)
	}
	for dst, src := range samples {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, "media", filepath.FromSlash(dst))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, len(samples)
}

// artifactExtractors are the extractors that make each kind of artifact.
var artifactExtractors = []string{"thumbnailer", "video_main_frames", "video_previews", "audio_previews", "document_pages", "vendor_faces"}

// TestNoSharedDiskArtifactsAndUploadsInABucket runs an api and two
// workers, each with an empty DATA_DIR of its own, their artifacts and
// upload store in a versitygw bucket: a folder is harvested (one worker
// killed midway, a fresh one started), a video uploaded through the api
// is harvested by a worker, and every artifact (thumbnails, sprites,
// frames, previews, face crops, page images) is served by the api, byte
// for byte what the bucket holds; no process wrote artifacts or uploads
// to its disk; a deleted item's artifacts and upload go from the bucket;
// the sweep removes an orphan.
func TestNoSharedDiskArtifactsAndUploadsInABucket(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	b := newDataBucket(t, testbucket.Shared(t))
	apiEnv := b.env(t)
	c, _ := p.startAPI(apiEnv...)
	var dirs []string
	worker := func() *testproc.Process {
		env := b.env(t, "WORKER_CONCURRENCY=2", "HARVEST_BATCH_FILES=2", testproc.VisionSidecar()) // vendor_faces needs it
		dirs = append(dirs, dataDir(env))
		return testproc.Start(t, "worker", p.env(env...))
	}
	w1 := worker()
	worker()

	root, n := mediaFolder(t)
	loc := c.call("POST", "/api/data/v3/locations", map[string]any{"kind": "filesystem", "name": "Media",
		"config": map[string]any{"path": root}}, 201)
	locID := loc["id"].(string)
	ctrID := c.call("GET", "/api/data/locations/"+locID+"/containers", nil, 200)["containers"].([]any)[0].(map[string]any)["id"].(string)
	req := c.call("POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID, "priority": 2,
		"extractors": artifactExtractors, "override_extractors": true}, 202)["request_id"].(string)

	// One worker dies (SIGKILL) midway; a fresh one, on a disk of its
	// own, takes its place.
	p.waitFor(req, 2, w1)
	w1.Kill()
	killedAt := p.harvestEnds(req)
	worker()
	p.recovered("a worker killed", req, ctrID, int64(n), time.Now(), 4*time.Minute)
	var job models.Job
	p.db.Where("request_id = ?", req).Take(&job)
	if job.ErrorCount != 0 {
		t.Fatalf("harvest errors: %s", p.harvestErrors(req))
	}
	t.Logf("worker killed after %d of %d files", killedAt, n)

	// A video uploaded through the api is harvested by a worker that
	// reads it from the bucket.
	video, err := os.ReadFile(filepath.Join("..", "..", "..", "extractors", "video", "testdata", "mp4.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	up := c.call("POST", "/files/uploadstore/inbox/upload.mp4", video, 201)
	upItem := up["item_id"].(string)
	if !bytes.Equal(b.get(t, "uploadstore/inbox/upload.mp4"), video) {
		t.Fatal("the upload is not in the bucket")
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r := c.call("GET", "/api/data/v3/activity/request/"+up["request_id"].(string)+"/items", nil, 200)
		if r["num_files"].(float64) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("upload not harvested: %v; errors: %s", r, p.harvestErrors(up["request_id"].(string)))
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Every artifact row is served by the api, as the bucket holds it.
	var arts []models.Artifact
	p.db.Order("path").Find(&arts)
	kinds := map[string]int{}
	items := map[string]bool{}
	for _, a := range arts {
		status, body, head := c.getRaw("/api/data/artifacts/" + a.Path)
		if status != 200 {
			t.Fatalf("%s (%s): %d %s", a.Path, a.Kind, status, body)
		}
		if !bytes.Equal(body, b.get(t, "artifacts/"+a.Path)) || head.Get("ETag") == "" {
			t.Fatalf("%s: served %d bytes, not the bucket's", a.Path, len(body))
		}
		kinds[a.Kind]++
		items[a.ItemID] = true
	}
	for _, k := range []string{"thumbnail", "sprite", "frame", "preview", "face", "page"} {
		if kinds[k] == 0 {
			t.Errorf("no %s served (artifacts by kind: %v)", k, kinds)
		}
	}
	if !items[upItem] {
		t.Errorf("the uploaded video has no artifacts (by kind: %v)", kinds)
	}
	// A range of a preview, as a player asks.
	for _, a := range arts {
		if a.Kind == "preview" {
			req, _ := http.NewRequest("GET", c.base+"/api/data/artifacts/"+a.Path, nil)
			req.Header.Set("Authorization", "Bearer "+c.token)
			req.Header.Set("Range", "bytes=10-19")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			part, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 206 || !bytes.Equal(part, b.get(t, "artifacts/"+a.Path)[10:20]) {
				t.Fatalf("range of %s: %d", a.Path, res.StatusCode)
			}
			break
		}
	}
	t.Logf("%d artifacts served from the bucket: %v", len(arts), kinds)

	// No process kept artifacts or uploads on its disk.
	for _, d := range append(dirs, dataDir(apiEnv)) {
		for _, tree := range []string{"artifacts", "uploadstore"} {
			if _, err := os.Stat(filepath.Join(d, tree)); !os.IsNotExist(err) {
				t.Errorf("%s has %s: %v", d, tree, err)
			}
		}
	}

	// Deleting items removes their artifacts (and the upload) from the
	// bucket.
	var pdf models.Item
	p.db.Where("path = 'docs/multicell.pdf'").Take(&pdf)
	prefix := "artifacts/" + pdf.ID[:2] + "/" + pdf.ID + "/"
	if len(b.keys(t, prefix)) == 0 {
		t.Fatal("the PDF has no artifacts")
	}
	c.call("DELETE", "/api/data/items/"+pdf.ID, nil, 200)
	if left := b.keys(t, prefix); len(left) != 0 {
		t.Errorf("artifacts of a deleted item left: %v", left)
	}
	c.call("DELETE", "/files/uploadstore/inbox/upload.mp4", nil, 200)
	if left := b.keys(t, "artifacts/"+upItem[:2]+"/"+upItem+"/"); len(left) != 0 {
		t.Errorf("artifacts of a deleted upload left: %v", left)
	}
	if left := b.keys(t, "uploadstore/"); len(left) != 0 {
		t.Errorf("deleted upload left: %v", left)
	}

	// An orphan (a crash between publishing and recording) is swept; the
	// files of rows stay.
	if _, err := b.client.PutObject(context.Background(), b.name, "deploy/artifacts/zz/orphan/thumbnailer/t.jpg",
		strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	before := len(b.keys(t, "artifacts/"))
	run := runCLIWithEnv(t, p.env(b.env(t)...), "artifacts", "sweep", "--grace", "0s")
	if run.code != 0 || !strings.Contains(run.stdout, "1 orphans removed") {
		t.Fatalf("sweep: %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	if after := b.keys(t, "artifacts/"); len(after) != before-1 || slices.Contains(after, "artifacts/zz/orphan/thumbnailer/t.jpg") {
		t.Fatalf("sweep left %d of %d keys", len(after), before)
	}
}

// The bucket is away for a few seconds mid-harvest (its server killed,
// then started again): items whose artifacts could not be published are
// retried, none fails; meanwhile served artifacts answer 502 with the
// JSON error body; afterwards every artifact is served.
func TestArtifactBucketRestartMidHarvest(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := testbucket.StartRestartable(t)
	b := newDataBucket(t, srv.Server)
	c, _ := p.startAPI(b.env(t)...)
	w := testproc.Start(t, "worker", p.env(b.env(t, "WORKER_CONCURRENCY=2", "HARVEST_BATCH_FILES=3")...))
	root := t.TempDir()
	pics := []string{"extractors/testdata/exif.jpg", "extractors/testdata/video-001.png", "extractors/images/testdata/tux.png",
		"extractors/images/testdata/goexif-sample1.jpg"}
	const n = 60
	for i := range n {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", pics[i%len(pics)]))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, "media", fmt.Sprintf("p%03d%s", i, filepath.Ext(pics[i%len(pics)])))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, data, 0o644)
	}
	loc := models.Location{ID: "fs", Kind: "filesystem", Name: "fs", Config: models.MustJSON(map[string]string{"path": root})}
	ctr := models.Container{ID: models.ContainerID("fs", "media"), LocationID: "fs", Name: "media"}
	p.db.Create(&loc)
	p.db.Create(&ctr)
	req := c.call("POST", "/api/control/harvest", map[string]any{"location_id": "fs", "container_id": ctr.ID,
		"extractors": []string{"thumbnailer"}, "override_extractors": true}, 202)["request_id"].(string)
	p.waitFor(req, 6, w)
	var served models.Artifact
	if err := p.db.Order("path").Take(&served).Error; err != nil {
		t.Fatal(err)
	}
	if status, body, _ := c.getRaw("/api/data/artifacts/" + served.Path); status != 200 {
		t.Fatalf("before: %d %s", status, body)
	}

	srv.Kill()
	at := p.harvestEnds(req)
	if at >= n {
		t.Fatalf("the job finished before the bucket went away (%d): make it bigger", at)
	}
	status, body, head := c.getRaw("/api/data/artifacts/" + served.Path)
	if status != 502 || !strings.Contains(string(body), `"code":"file_store_unavailable"`) ||
		!strings.HasPrefix(head.Get("Content-Type"), "application/json") || strings.Contains(string(body), b.name) {
		t.Fatalf("while away: %d %q %s", status, head.Get("Content-Type"), body)
	}
	time.Sleep(3 * time.Second)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	t.Logf("bucket away for 3 s with %d of %d pictures harvested", at, n)
	p.recovered("the data bucket away", req, ctr.ID, n, back, 3*time.Minute)
	var job models.Job
	p.db.Where("request_id = ?", req).Take(&job)
	if job.ErrorCount != 0 {
		t.Fatalf("items failed: %s", p.harvestErrors(req))
	}
	var arts []models.Artifact
	p.db.Find(&arts)
	if len(arts) < n {
		t.Fatalf("%d artifacts for %d pictures", len(arts), n)
	}
	for _, a := range arts {
		if status, body, _ := c.getRaw("/api/data/artifacts/" + a.Path); status != 200 {
			t.Fatalf("%s after: %d %s", a.Path, status, body)
		}
	}
	if w.Exited() {
		t.Fatal("the worker exited")
	}
}

// metaharvest artifacts migrate copies a DATA_DIR's artifacts and upload
// store into the bucket, resumably and verifiably, and back.
func TestArtifactsMigrateCommand(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	b := newDataBucket(t, testbucket.Shared(t))
	env := b.env(t)
	dir := dataDir(env)
	files := map[string]string{}
	for i := range 30 {
		k := fmt.Sprintf("artifacts/%02x/item%d/thumbnailer/t%d.jpg", i%5, i, i)
		files[k] = strings.Repeat(fmt.Sprint(i), 50+i)
	}
	files["uploadstore/inbox/clip.mp4"] = "video bytes"
	for k, v := range files {
		path := filepath.Join(dir, filepath.FromSlash(k))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(v), 0o644)
	}
	run := runCLIWithEnv(t, p.env(env...), "artifacts", "migrate")
	if run.code != 0 || !strings.Contains(run.stdout, "artifacts: done, 30 files, 30 copied") ||
		!strings.Contains(run.stdout, "upload store: done, 1 files, 1 copied") || strings.Contains(run.stdout, b.srv.SecretKey) {
		t.Fatalf("migrate: %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	for k, v := range files {
		if got := string(b.get(t, k)); got != v {
			t.Fatalf("%s in the bucket: %q", k, got)
		}
	}
	// Run again (as after an interruption): nothing left to copy; with
	// --verify, a file damaged in the bucket is copied again.
	if _, err := b.client.PutObject(context.Background(), b.name, "deploy/artifacts/00/item0/thumbnailer/t0.jpg",
		strings.NewReader(strings.Repeat("X", 50)), 50, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	run = runCLIWithEnv(t, p.env(env...), "artifacts", "migrate", "--verify")
	if run.code != 0 || !strings.Contains(run.stdout, "artifacts: done, 30 files, 1 copied, 29 already there, 30 verified") {
		t.Fatalf("verify: %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	if got := string(b.get(t, "artifacts/00/item0/thumbnailer/t0.jpg")); got != files["artifacts/00/item0/thumbnailer/t0.jpg"] {
		t.Fatalf("damaged copy not fixed: %q", got)
	}
	// And back, into an empty DATA_DIR.
	back := b.env(t)
	run = runCLIWithEnv(t, p.env(back...), "artifacts", "migrate", "--to", "directory", "--verify")
	if run.code != 0 {
		t.Fatalf("back: %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	for k, v := range files {
		got, err := os.ReadFile(filepath.Join(dataDir(back), filepath.FromSlash(k)))
		if err != nil || string(got) != v {
			t.Fatalf("%s back: %q %v", k, got, err)
		}
	}
	// Without a bucket there is nothing to migrate to: a clear refusal.
	run = runCLIWithEnv(t, p.env("DATA_DIR="+t.TempDir()), "artifacts", "migrate")
	if run.code != 1 || !strings.Contains(run.stderr, "DATA_BUCKET") {
		t.Fatalf("without a bucket: %d %s", run.code, run.stderr)
	}
}
