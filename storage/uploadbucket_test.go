package storage_test

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/storage"
)

// newBucketUploads is the upload store in a fresh bucket of the shared
// server, as storage.Open gives it with DATA_BUCKET set.
func newBucketUploads(t *testing.T) storage.Uploads {
	t.Helper()
	srv := testbucket.Shared(t)
	name := testbucket.BucketName(t)
	srv.CreateBucket(t, name)
	files, err := blobstore.Open(config.Config{DataDir: t.TempDir(), DataBucket: config.DataBucket{Endpoint: srv.Endpoint, Name: name,
		Region: "us-east-1", AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, PathStyle: "true", URLTTL: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	env := storage.Env{DataDir: t.TempDir(), UploadBucket: files.Uploads}
	loc, err := storage.Open(storage.KindUploadStore, nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := loc.(*storage.BucketUploads); !ok {
		t.Fatalf("Open with a bucket returned %T", loc)
	}
	u, err := storage.OpenUploads(env)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The upload store in a bucket behaves as the local one does for the
// upload endpoint and the walker: written atomically, listed by container
// and path in byte order (hidden names skipped), its entries the same
// whether written, stated or listed (so a walk finds an upload unchanged),
// read whole or by ranges, removed.
func TestBucketUploadsWriteListReadRemove(t *testing.T) {
	t.Parallel()
	s := newBucketUploads(t)
	ctx := testCtx(t)
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	c, e, err := s.Write(ctx, "photo.jpg", strings.NewReader("jpeg"), 0)
	if err != nil || c != storage.DefaultUploadContainer || e.Path != "photo.jpg" || e.Size != 4 || e.ETag == "" {
		t.Fatalf("Write single segment: %q %+v %v", c, e, err)
	}
	for _, p := range []string{"shoot/day 1/clip.mov", "shoot/day 1/b.wav", "shoot/a.txt", "shoot/day 10/x", "other/z"} {
		if _, _, err := s.Write(ctx, p, strings.NewReader("content of "+p), 0); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.Stat(ctx, storage.DefaultUploadContainer, "photo.jpg")
	if err != nil || st != e {
		t.Fatalf("Stat %+v, want the written entry %+v (%v)", st, e, err)
	}
	listed := listAll(t, s, storage.DefaultUploadContainer, "", 10)
	if len(listed) != 1 || listed[0] != e {
		t.Fatalf("listed %+v, want %+v", listed, e)
	}
	if got := paths(listAll(t, s, "shoot", "", 2)); !slices.Equal(got, []string{"a.txt", "day 1/b.wav", "day 1/clip.mov", "day 10/x"}) {
		t.Fatalf("listed %q", got)
	}
	containers, next, err := s.ListContainers(ctx, "", "", 2)
	if err != nil || !slices.Equal(containers, []string{"other", "shoot"}) || next != "shoot" {
		t.Fatalf("containers %v %q %v", containers, next, err)
	}
	if containers, _, _ := s.ListContainers(ctx, "", "shoot", 2); !slices.Equal(containers, []string{"uploads"}) {
		t.Fatalf("containers after shoot: %v", containers)
	}
	if got := readAll(t, mustOpen(t, s, "shoot", "day 1/clip.mov")); got != "content of shoot/day 1/clip.mov" {
		t.Fatalf("content %q", got)
	}
	if _, ok := s.LocalPath("shoot", "a.txt"); ok {
		t.Fatal("a bucket has no local path")
	}
	// The worker reads it by ranges, and the content route seeks in it.
	rr := s.(storage.RangeReader)
	body, re, err := rr.ReadRange(ctx, "shoot", "day 1/clip.mov", 11, 5, e2etag(t, s, "shoot", "day 1/clip.mov"))
	if err != nil || readAll(t, body) != "shoot" || re.Size != int64(len("content of shoot/day 1/clip.mov")) {
		t.Fatalf("ReadRange: %+v %v", re, err)
	}
	_, _, err = rr.ReadRange(ctx, "shoot", "day 1/clip.mov", 0, 5, "not-the-etag")
	wantErr(t, err, storage.ErrChanged)
	f, _, err := storage.OpenSeeker(ctx, s, "shoot", "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	f.Seek(11, io.SeekStart)
	if rest, _ := io.ReadAll(f); string(rest) != "shoot/a.txt" {
		t.Fatalf("seek and read: %q", rest)
	}
	f.Close()

	// Overwrite: new content and a new etag.
	_, e2, err := s.Write(ctx, "photo.jpg", strings.NewReader("JPEG2"), 0)
	if err != nil || e2.ETag == e.ETag || e2.Size != 5 {
		t.Fatalf("overwrite: %+v %v", e2, err)
	}
	c, p, err := s.Remove(ctx, "shoot/day 1/clip.mov")
	if err != nil || c != "shoot" || p != "day 1/clip.mov" {
		t.Fatalf("Remove: %q %q %v", c, p, err)
	}
	_, err = s.Stat(ctx, "shoot", "day 1/clip.mov")
	wantErr(t, err, storage.ErrNotFound)
	_, _, err = s.Remove(ctx, "shoot/day 1/clip.mov")
	wantErr(t, err, storage.ErrNotFound)
	_, err = s.Open(ctx, "shoot", "../x")
	wantErr(t, err, storage.ErrBadPath)
}

func e2etag(t *testing.T, s storage.Location, container, p string) string {
	t.Helper()
	e, err := s.Stat(testCtx(t), container, p)
	if err != nil {
		t.Fatal(err)
	}
	return e.ETag
}

// A body over the limit, or one that fails midway, leaves nothing in the
// bucket, and the file it would have replaced stays.
func TestBucketUploadsLimitAndInterruptedWrite(t *testing.T) {
	t.Parallel()
	s := newBucketUploads(t)
	ctx := testCtx(t)
	if _, _, err := s.Write(ctx, "c/exact", strings.NewReader("0123456789"), 10); err != nil {
		t.Fatalf("exactly the limit: %v", err)
	}
	if _, _, err := s.Write(ctx, "c/keep", strings.NewReader("old"), 0); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.Write(ctx, "c/big", bytes.NewReader(bytes.Repeat([]byte("z"), 20<<20)), 1<<20)
	wantErr(t, err, storage.ErrTooLarge)
	_, _, err = s.Write(ctx, "c/keep", strings.NewReader("0123456789A"), 10)
	wantErr(t, err, storage.ErrTooLarge)
	_, _, err = s.Write(ctx, "c/f", &failingReader{n: 100000}, 0)
	wantErr(t, err, io.ErrUnexpectedEOF)
	if got := paths(listAll(t, s, "c", "", 10)); !slices.Equal(got, []string{"exact", "keep"}) {
		t.Fatalf("listed %q", got)
	}
	if got := readAll(t, mustOpen(t, s, "c", "keep")); got != "old" {
		t.Fatalf("refused overwrite changed the file: %q", got)
	}
	// Names the local store hides are refused, not written unseen.
	_, _, err = s.Write(ctx, "c/.hidden", strings.NewReader("x"), 0)
	wantErr(t, err, storage.ErrBadPath)
}
