package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/models"
)

// roundFrames writes frames named after the harvest's round (so that a
// new round's set differs from the last) and lists them; in round 0 it
// lists a file it did not write.
type roundFrames struct{ round *atomic.Int32 }

func (f roundFrames) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	r := f.round.Load()
	if err := os.MkdirAll(filepath.Join(in.ArtifactDir, "frames"), 0o755); err != nil {
		return nil, err
	}
	res := &extractors.Result{Data: map[string]any{"round": r}}
	for i := range 2 {
		name := fmt.Sprintf("frames/r%d-%d.jpg", r, i)
		if err := os.WriteFile(filepath.Join(in.ArtifactDir, filepath.FromSlash(name)), []byte(fmt.Sprintf("round %d frame %d", r, i)), 0o644); err != nil {
			return nil, err
		}
		res.Artifacts = append(res.Artifacts, extractors.Artifact{Path: name, Kind: "frame", Width: 4, Height: 3})
	}
	// A work file an extractor leaves beside its artifacts is not one.
	os.WriteFile(filepath.Join(in.ArtifactDir, "scratch.tmp"), []byte("x"), 0o644)
	return res, nil
}

// artifactKinds are the artifact stores a worker test runs on.
func artifactKinds(t *testing.T) map[string]func(f *fixture) blobstore.Store {
	return map[string]func(f *fixture) blobstore.Store{
		blobstore.KindDirectory: func(f *fixture) blobstore.Store { return f.deps.Files.Artifacts },
		blobstore.KindBucket: func(f *fixture) blobstore.Store {
			srv := testbucket.Start(t)
			name := testbucket.BucketName(t)
			srv.CreateBucket(t, name)
			files, err := blobstore.Open(bucketConfig(f.deps.Config, srv.Endpoint, srv, name))
			if err != nil {
				t.Fatal(err)
			}
			f.deps.Files = files
			return files.Artifacts
		},
	}
}

func bucketConfig(cfg config.Config, endpoint string, srv testbucket.Server, bucket string) config.Config {
	cfg.DataBucket = config.DataBucket{Endpoint: endpoint, Name: bucket, Region: "us-east-1", AccessKeyID: srv.AccessKey,
		SecretAccessKey: srv.SecretKey, PathStyle: "true"}
	return cfg
}

// The worker publishes what extractors list to the artifact store, the
// same on both kinds: a re-harvest replaces the extractor's files (the
// ones it no longer makes go once their rows are replaced), the others'
// stay, and nothing is left in the worker's temporary directory.
func TestArtifactsPublishedAndReplaced(t *testing.T) {
	t.Parallel()
	for kind, open := range artifactKinds(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var round atomic.Int32
			reg := testRegistry(t)
			reg.MustRegister(extractors.Info{Name: "frames", Family: extractors.FamilyTechnical, DisplayName: "Frames", Version: "1",
				Implemented: true, DefaultEnabled: true, New: func(extractors.Env) (extractors.Extractor, error) { return roundFrames{&round}, nil }})
			f := newFixture(t, reg)
			f.deps.Files = blobstore.Local(f.deps.Config.DataDir)
			store := open(f)
			f.write("clip.mp4", "not really a video")
			f.startWorker()
			ctx := context.Background()

			round.Store(1)
			f.waitJob(f.harvest(jobs.Spec{Extractors: []string{"frames"}}), mediaJobWait)
			var item models.Item
			f.db.Where("path = 'clip.mp4'").Take(&item)
			prefix := item.ID[:2] + "/" + item.ID + "/frames/"
			keys := func() []string {
				list, err := store.List(ctx, item.ID[:2]+"/", "", 100)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, in := range list {
					out = append(out, in.Key)
				}
				return out
			}
			want := prefix + "frames/r1-0.jpg " + prefix + "frames/r1-1.jpg"
			if got := strings.Join(keys(), " "); got != want {
				t.Fatalf("round 1 stored %s, want %s", got, want)
			}
			var arts []models.Artifact
			f.db.Where("item_id = ?", item.ID).Order("path").Find(&arts)
			if len(arts) != 2 || arts[0].Path != prefix+"frames/r1-0.jpg" {
				t.Fatalf("rows %+v", arts)
			}
			o, err := store.Open(ctx, arts[1].Path, true)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(o)
			o.Close()
			if string(b) != "round 1 frame 1" {
				t.Fatalf("stored %q", b)
			}

			// Round 2: new files; round 1's are removed once the rows are
			// (just after the batch commits).
			round.Store(2)
			f.waitJob(f.harvest(jobs.Spec{ItemID: item.ID, Extractors: []string{"frames"}, Force: true}), mediaJobWait)
			want = prefix + "frames/r2-0.jpg " + prefix + "frames/r2-1.jpg"
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				got := strings.Join(keys(), " ")
				if got == want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("round 2 stored %s, want %s", got, want)
				}
			}
			if kind == blobstore.KindBucket {
				if _, err := os.Stat(filepath.Join(f.deps.Config.DataDir, "artifacts")); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a bucket deployment wrote DATA_DIR/artifacts: %v", err)
				}
			}
			work, _ := filepath.Glob(filepath.Join(f.deps.Config.DataDir, "tmp", "artifacts-*"))
			if len(work) != 0 {
				t.Errorf("temporary artifact directories left: %v", work)
			}
		})
	}
}

// The bucket refuses writes for a while mid-harvest: the items whose
// artifacts could not be published are retried, not failed, and end with
// their files in the store.
func TestPublishFailureRetriesTheItem(t *testing.T) {
	t.Parallel()
	var round atomic.Int32
	round.Store(1)
	reg := testRegistry(t)
	reg.MustRegister(extractors.Info{Name: "frames", Family: extractors.FamilyTechnical, DisplayName: "Frames", Version: "1",
		Implemented: true, DefaultEnabled: true, New: func(extractors.Env) (extractors.Extractor, error) { return roundFrames{&round}, nil }})
	f := newFixture(t, reg)
	srv := testbucket.Start(t)
	proxy, err := testbucket.NewProxy(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	name := testbucket.BucketName(t)
	srv.CreateBucket(t, name)
	if f.deps.Files, err = blobstore.Open(bucketConfig(f.deps.Config, proxy.Endpoint, srv, name)); err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int32
	proxy.Answer(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPut || refused.Load() >= 3 {
			return false
		}
		refused.Add(1)
		// Not one minio-go retries by itself: the task must.
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>denied</Message></Error>`)
		return true
	})
	for i := range 3 {
		f.write(fmt.Sprintf("clip%d.mp4", i), "video")
	}
	f.startWorker()
	job := f.waitJob(f.harvest(jobs.Spec{Extractors: []string{"frames"}}), time.Minute)
	if job.ErrorCount != 0 || refused.Load() < 3 {
		t.Fatalf("job %+v after %d refusals", job, refused.Load())
	}
	var arts []models.Artifact
	f.db.Find(&arts)
	if len(arts) != 6 {
		t.Fatalf("%d artifact rows", len(arts))
	}
	for _, a := range arts {
		if _, err := f.deps.Files.Artifacts.Stat(context.Background(), a.Path); err != nil {
			t.Errorf("%s: %v", a.Path, err)
		}
	}
}

// The sweep removes files no row names once they are old enough, and
// keeps the files of rows (artifacts, reference pictures of people).
func TestSweepArtifacts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	store := blobstore.Local(f.deps.Config.DataDir).Artifacts
	ctx := context.Background()
	var item models.Item
	f.write("a.txt", "a")
	f.startWorker()
	f.waitJob(f.harvest(jobs.Spec{}), mediaJobWait)
	f.db.Where("path = 'a.txt'").Take(&item)
	kept := item.ID[:2] + "/" + item.ID + "/thumbnailer/t.jpg"
	if err := f.db.Create(&models.Artifact{ItemID: item.ID, Path: kept, Extractor: "thumbnailer", Kind: "thumbnail"}).Error; err != nil {
		t.Fatal(err)
	}
	// A person's reference picture and its face crop are kept too.
	if err := f.db.Exec(`INSERT INTO persons (id, name) VALUES ('p1', 'Ada')`).Error; err != nil {
		t.Fatal(err)
	}
	if err := f.db.Exec(`INSERT INTO person_references (person_id, picture, thumbnail, status)
VALUES ('p1', 'people/p1/1.jpg', 'people/p1/1-face.jpg', 'ready')`).Error; err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{kept, "zz/orphan/frames/1.jpg", "aa/orphan/frames/2.jpg", "people/p1/1.jpg", "people/p1/1-face.jpg"} {
		if _, err := store.Put(ctx, k, strings.NewReader("x"), 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, removed, err := SweepArtifacts(ctx, f.db, store, "", 5, time.Now().Add(-time.Hour)); err != nil || removed != 0 {
		t.Fatalf("young orphans removed: %d %v", removed, err)
	}
	next, removed, err := SweepArtifacts(ctx, f.db, store, "", 5, time.Now().Add(time.Minute))
	if err != nil || removed != 2 || next != "" {
		t.Fatalf("sweep: %q %d %v", next, removed, err)
	}
	left, _ := store.List(ctx, "", "", 10)
	keys := map[string]bool{}
	for _, in := range left {
		keys[in.Key] = true
	}
	if len(left) != 3 || !keys[kept] || !keys["people/p1/1-face.jpg"] || !keys["people/p1/1.jpg"] {
		t.Fatalf("left %v", left)
	}
}

// TestRemoveWorkDir: an item's temporary directory goes whether its
// extractors never made it, made it and wrote nothing, or wrote files in
// folders of their own.
func TestRemoveWorkDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	never := filepath.Join(base, "never")
	removeWorkDir(never)
	empty := filepath.Join(base, "empty")
	full := filepath.Join(base, "full")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(full, "thumbnails", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "thumbnails", "sub", "a.jpg"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	removeWorkDir(empty)
	removeWorkDir(full)
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}
