package blobstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/testbucket"
)

func TestMain(m *testing.M) { os.Exit(testbucket.RunMain(m)) }

// kinds are the two kinds of store, each fresh for one test.
var kinds = map[string]func(t *testing.T) blobstore.Store{
	blobstore.KindDirectory: func(t *testing.T) blobstore.Store { return blobstore.NewDir(filepath.Join(t.TempDir(), "artifacts")) },
	blobstore.KindBucket:    func(t *testing.T) blobstore.Store { return newBucket(t, "").Sub("artifacts/") },
}

// newBucket is a store on a fresh bucket of the shared test server, with
// a browser endpoint when browser is set.
func newBucket(t *testing.T, browser string) *blobstore.Bucket {
	t.Helper()
	srv := testbucket.Shared(t)
	name := testbucket.BucketName(t)
	srv.CreateBucket(t, name)
	b, err := blobstore.OpenBucket(BucketSettings(srv, name, browser))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BucketSettings are the DATA_BUCKET_* settings of a bucket of srv.
func BucketSettings(srv testbucket.Server, bucket, browser string) config.DataBucket {
	return config.DataBucket{Endpoint: srv.Endpoint, Name: bucket, Prefix: "deploy/", Region: "us-east-1",
		AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, PathStyle: "true", BrowserEndpoint: browser, URLTTL: time.Minute}
}

// forEachKind runs the test on both kinds: the same expectations hold
// for a directory and a bucket.
func forEachKind(t *testing.T, test func(t *testing.T, s blobstore.Store)) {
	for name, open := range kinds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, open(t))
		})
	}
}

// failing fails as an HTTP body does when its client hangs up.
type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func put(t *testing.T, s blobstore.Store, key, content string) blobstore.Info {
	t.Helper()
	info, err := s.Put(context.Background(), key, strings.NewReader(content), int64(len(content)))
	if err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	return info
}

func read(t *testing.T, s blobstore.Store, key string, whole bool) string {
	t.Helper()
	o, err := s.Open(context.Background(), key, whole)
	if err != nil {
		t.Fatalf("open %s: %v", key, err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return string(b)
}

func TestPutOpenStatReplace(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s blobstore.Store) {
		ctx := context.Background()
		key := "ab/abcdef/thumbnailer/thumb.jpg"
		put(t, s, key, "first version")
		for _, whole := range []bool{true, false} {
			if got := read(t, s, key, whole); got != "first version" {
				t.Fatalf("read (whole %v) %q", whole, got)
			}
		}
		first, err := s.Stat(ctx, key)
		if err != nil || first.Size != 13 || first.ETag == "" || first.Modified.IsZero() || first.Key != key {
			t.Fatalf("stat %+v %v", first, err)
		}
		// A re-harvest replaces the file: a new validator, the new bytes.
		time.Sleep(10 * time.Millisecond) // a directory's ETag includes the time
		put(t, s, key, "second, longer version")
		second, err := s.Stat(ctx, key)
		if err != nil || second.Size != 22 || second.ETag == first.ETag {
			t.Fatalf("after replace: %+v (was %+v) %v", second, first, err)
		}
		if got := read(t, s, key, true); got != "second, longer version" {
			t.Fatalf("replaced content %q", got)
		}
		// PutFile publishes a local file (the worker's way).
		src := filepath.Join(t.TempDir(), "frame.jpg")
		if err := os.WriteFile(src, []byte("frame bytes"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.PutFile(ctx, "ab/abcdef/video_main_frames/frames/0001.jpg", src); err != nil {
			t.Fatal(err)
		}
		if got := read(t, s, "ab/abcdef/video_main_frames/frames/0001.jpg", false); got != "frame bytes" {
			t.Fatalf("published %q", got)
		}
		// Missing files, bad keys.
		if _, err := s.Open(ctx, "ab/abcdef/none.jpg", true); !errors.Is(err, blobstore.ErrNotFound) {
			t.Fatalf("open of a missing key: %v", err)
		}
		if _, err := s.Stat(ctx, "ab/none"); !errors.Is(err, blobstore.ErrNotFound) {
			t.Fatalf("stat of a missing key: %v", err)
		}
		for _, bad := range []string{"", "/abs", "a//b", "a/../b", "a/./b", "a\\b", "a/.hidden", "x\x00y", strings.Repeat("k", 901)} {
			if _, err := s.Put(ctx, bad, strings.NewReader("x"), 1); !errors.Is(err, blobstore.ErrBadKey) {
				t.Errorf("put %q: %v", bad, err)
			}
			if _, err := s.Open(ctx, bad, true); !errors.Is(err, blobstore.ErrBadKey) {
				t.Errorf("open %q: %v", bad, err)
			}
		}
		// A reader that fails midway (a client hanging up: its body says
		// io.ErrUnexpectedEOF) writes nothing, and leaves the old file.
		if _, err := s.Put(ctx, key, io.MultiReader(strings.NewReader("truncated"), failing{}), -1); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("put from a failing reader: %v", err)
		}
		if _, err := s.Put(ctx, "ab/new.jpg", io.MultiReader(strings.NewReader("truncated"), failing{}), -1); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("put from a failing reader: %v", err)
		}
		if got := read(t, s, key, true); got != "second, longer version" {
			t.Fatalf("after a failed put: %q", got)
		}
		if _, err := s.Stat(ctx, "ab/new.jpg"); !errors.Is(err, blobstore.ErrNotFound) {
			t.Fatalf("a failed put left a file: %v", err)
		}
		// An empty file is a file.
		put(t, s, "ab/empty", "")
		if got := read(t, s, "ab/empty", true); got != "" {
			t.Fatalf("empty file read %q", got)
		}
	})
}

// Players seek in previews: an Object reads from anywhere, in windows,
// whether opened whole or not.
func TestSeekAndReadRanges(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s blobstore.Store) {
		ctx := context.Background()
		content := make([]byte, 600<<10) // more than one window
		for i := range content {
			content[i] = byte(i * 7 % 251)
		}
		if _, err := s.Put(ctx, "pr/preview.mp4", bytes.NewReader(content), int64(len(content))); err != nil {
			t.Fatal(err)
		}
		for _, whole := range []bool{true, false} {
			o, err := s.Open(ctx, "pr/preview.mp4", whole)
			if err != nil {
				t.Fatal(err)
			}
			if o.Info().Size != int64(len(content)) {
				t.Fatalf("size %d", o.Info().Size)
			}
			for _, at := range []int64{500 << 10, 3, 0, 599 << 10, 256<<10 - 1} {
				if _, err := o.Seek(at, io.SeekStart); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 2000)
				n, err := io.ReadFull(o, buf)
				want := content[at:min(at+2000, int64(len(content)))]
				if (err != nil && !errors.Is(err, io.ErrUnexpectedEOF)) || !bytes.Equal(buf[:n], want) {
					t.Fatalf("whole %v, at %d: %d bytes, %v", whole, at, n, err)
				}
			}
			if end, _ := o.Seek(0, io.SeekEnd); end != int64(len(content)) {
				t.Fatalf("end %d", end)
			}
			if n, err := o.Read(make([]byte, 10)); n != 0 || err != io.EOF {
				t.Fatalf("read at the end: %d %v", n, err)
			}
			o.Seek(0, io.SeekStart)
			all, err := io.ReadAll(o)
			if err != nil || !bytes.Equal(all, content) {
				t.Fatalf("whole %v: read all %d bytes, %v", whole, len(all), err)
			}
			o.Close()
		}
	})
}

// List pages through keys in byte order whatever the depth, skipping
// what sorts before the cursor; Remove deletes, and a missing key is no
// error.
func TestListInKeyOrderAndRemove(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s blobstore.Store) {
		ctx := context.Background()
		keys := []string{"a-b", "a/b/c", "a/b0", "a.b", "a0", "b/x/y/z.jpg", "ab/cd/faces/faces/1.jpg", "ab/cd/faces/faces/10.jpg",
			"ab/cd/faces/faces/2.jpg", "ab/cd/thumbnailer/t.jpg", "ab/ce/x"}
		for _, k := range keys {
			put(t, s, k, "content of "+k)
		}
		want := []string{"a-b", "a.b", "a/b/c", "a/b0", "a0", "ab/cd/faces/faces/1.jpg", "ab/cd/faces/faces/10.jpg",
			"ab/cd/faces/faces/2.jpg", "ab/cd/thumbnailer/t.jpg", "ab/ce/x", "b/x/y/z.jpg"}
		var got []string
		after := ""
		for {
			page, err := s.List(ctx, "", after, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range page {
				got = append(got, in.Key)
				if in.Size != int64(len("content of "+in.Key)) || in.ETag == "" {
					t.Errorf("listed %+v", in)
				}
			}
			if len(page) < 3 {
				break
			}
			after = page[len(page)-1].Key
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("listed\n %v\nwant\n %v", got, want)
		}
		page, err := s.List(ctx, "ab/cd/", "ab/cd/faces/faces/10.jpg", 10)
		if err != nil || len(page) != 2 || page[0].Key != "ab/cd/faces/faces/2.jpg" || page[1].Key != "ab/cd/thumbnailer/t.jpg" {
			t.Fatalf("prefix listing %v %v", page, err)
		}
		if err := s.Remove(ctx, []string{"ab/cd/faces/faces/1.jpg", "ab/cd/faces/faces/10.jpg", "ab/cd/faces/faces/2.jpg", "ab/none"}); err != nil {
			t.Fatal(err)
		}
		if err := s.Remove(ctx, []string{"a0"}); err != nil {
			t.Fatal(err)
		}
		page, err = s.List(ctx, "ab/", "", 10)
		if err != nil || len(page) != 2 || page[0].Key != "ab/cd/thumbnailer/t.jpg" {
			t.Fatalf("after remove: %v %v", page, err)
		}
		if _, err := s.Stat(ctx, "a0"); !errors.Is(err, blobstore.ErrNotFound) {
			t.Fatalf("removed file: %v", err)
		}
		// A removed item's directory is written again at once.
		put(t, s, "ab/cd/faces/faces/1.jpg", "again")
		if got := read(t, s, "ab/cd/faces/faces/1.jpg", true); got != "again" {
			t.Fatal(got)
		}
	})
}

// Readers never see part of a file: while one goroutine replaces a file
// over and over, every read gets one whole version.
func TestWritesAreAtomic(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s blobstore.Store) {
		ctx := context.Background()
		versions := []string{strings.Repeat("a", 300<<10), strings.Repeat("b", 200<<10), strings.Repeat("c", 400<<10)}
		put(t, s, "x/preview.mp4", versions[0])
		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				v := versions[i%len(versions)]
				if _, err := s.Put(ctx, "x/preview.mp4", strings.NewReader(v), int64(len(v))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		for range 30 {
			o, err := s.Open(ctx, "x/preview.mp4", true)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(o)
			o.Close()
			if errors.Is(err, blobstore.ErrChanged) {
				continue // a bucket refuses a later window of another version
			}
			if err != nil {
				t.Fatal(err)
			}
			ok := false
			for _, v := range versions {
				ok = ok || string(b) == v
			}
			if !ok {
				t.Fatalf("read %d bytes that are no version", len(b))
			}
		}
		close(stop)
		wg.Wait()
	})
}

// Copy moves a tree from a directory to a bucket and back: resumable
// (what is there is skipped), verifiable (a corrupt copy is made again).
func TestCopyBothWays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := blobstore.NewDir(filepath.Join(t.TempDir(), "artifacts"))
	bucket := newBucket(t, "").Sub("artifacts/")
	want := map[string]string{}
	for i := range 25 {
		k := fmt.Sprintf("%02x/item%d/thumbnailer/thumb-%d.jpg", i%4, i, i)
		want[k] = strings.Repeat(fmt.Sprint(i), 100+i)
		put(t, dir, k, want[k])
	}
	// A first copy interrupted after a few files: they are there already.
	for _, k := range []string{"00/item0/thumbnailer/thumb-0.jpg", "01/item1/thumbnailer/thumb-1.jpg"} {
		put(t, bucket, k, want[k])
	}
	var reports int
	p, err := blobstore.Copy(ctx, dir, bucket, blobstore.CopyOptions{Workers: 3, Report: func(blobstore.Progress) { reports++ }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Listed != 25 || p.Copied != 23 || p.Present != 2 || reports == 0 {
		t.Fatalf("progress %+v, %d reports", p, reports)
	}
	// One file damaged at the destination, one missing: a verifying run
	// fixes both and checks every other.
	put(t, bucket, "02/item2/thumbnailer/thumb-2.jpg", strings.Repeat("X", len(want["02/item2/thumbnailer/thumb-2.jpg"])))
	bucket.Remove(ctx, []string{"03/item3/thumbnailer/thumb-3.jpg"})
	p, err = blobstore.Copy(ctx, dir, bucket, blobstore.CopyOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Copied != 2 || p.Recopied != 1 || p.Verified != 25 {
		t.Fatalf("verifying run: %+v", p)
	}
	// And back, into an empty directory.
	back := blobstore.NewDir(filepath.Join(t.TempDir(), "restored"))
	if p, err = blobstore.Copy(ctx, bucket, back, blobstore.CopyOptions{Verify: true}); err != nil || p.Copied != 25 || p.Verified != 25 {
		t.Fatalf("back: %+v %v", p, err)
	}
	for k, v := range want {
		if got := read(t, back, k, true); got != v {
			t.Fatalf("%s: %q", k, got)
		}
	}
}

// Sweep removes old files no row refers to, page by page, and leaves
// young ones (a harvest may be about to record them).
func TestSweepRemovesOldOrphans(t *testing.T) {
	t.Parallel()
	forEachKind(t, func(t *testing.T, s blobstore.Store) {
		ctx := context.Background()
		known := map[string]bool{}
		for i := range 7 {
			k := fmt.Sprintf("k%d", i)
			put(t, s, k, "x")
			known[k] = i%2 == 0
		}
		isKnown := func(_ context.Context, keys []string) (map[string]bool, error) {
			out := map[string]bool{}
			for _, k := range keys {
				out[k] = known[k]
			}
			return out, nil
		}
		// Nothing is old enough yet.
		if _, removed, err := blobstore.Sweep(ctx, s, "", 100, time.Now().Add(-time.Hour), isKnown); err != nil || removed != 0 {
			t.Fatalf("young files swept: %d %v", removed, err)
		}
		total, after, pages := 0, "", 0
		for {
			next, removed, err := blobstore.Sweep(ctx, s, after, 3, time.Now().Add(time.Minute), isKnown)
			if err != nil {
				t.Fatal(err)
			}
			total += removed
			pages++
			if next == "" {
				break
			}
			after = next
		}
		if total != 3 || pages != 3 {
			t.Fatalf("removed %d in %d pages", total, pages)
		}
		left, _ := s.List(ctx, "", "", 100)
		if len(left) != 4 {
			t.Fatalf("left %v", left)
		}
	})
}

// A directory's reads stay inside it: a symlink planted in it is no file.
func TestDirDoesNotFollowSymlinksOut(t *testing.T) {
	t.Parallel()
	d := blobstore.NewDir(filepath.Join(t.TempDir(), "artifacts"))
	put(t, d, "ab/real.jpg", "x")
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o644)
	if err := os.Symlink(outside, d.Path("ab/link.jpg")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open(context.Background(), "ab/link.jpg", true); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("open through a symlink out: %v", err)
	}
	if err := d.Remove(context.Background(), []string{"ab/link.jpg"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatal("remove followed the symlink")
	}
}

// A bucket hands browsers presigned URLs of the endpoint they reach,
// which serve the file with the type asked for, and expire.
func TestBucketBrowserURLs(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	b := newBucket(t, srv.Endpoint).Sub("artifacts/")
	put(t, b, "ab/thumb.jpg", "jpeg bytes")
	u, err := b.BrowserURL(context.Background(), "ab/thumb.jpg", time.Minute, "image/jpeg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, srv.Endpoint+"/") || strings.Contains(u, srv.SecretKey) {
		t.Fatalf("URL %s", u)
	}
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "jpeg bytes" || res.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("GET presigned: %d %q %q", res.StatusCode, body, res.Header.Get("Content-Type"))
	}
	// Without a browser endpoint, and for a directory: none.
	if _, err := newBucket(t, "").BrowserURL(context.Background(), "ab/thumb.jpg", time.Minute, ""); !errors.Is(err, blobstore.ErrNoBrowserURL) {
		t.Fatalf("no browser endpoint: %v", err)
	}
	if _, err := blobstore.NewDir(t.TempDir()).BrowserURL(context.Background(), "ab/thumb.jpg", time.Minute, ""); !errors.Is(err, blobstore.ErrNoBrowserURL) {
		t.Fatalf("directory: %v", err)
	}
}

// A bucket that does not answer is ErrUnavailable, quickly, and a bucket
// that does not exist is a refusal a process should not start with.
func TestBucketUnavailable(t *testing.T) {
	t.Parallel()
	srv := testbucket.Shared(t)
	down := BucketSettings(srv, "no-such-bucket-here", "")
	down.Endpoint = "http://127.0.0.1:1" // nothing listens there
	b, err := blobstore.OpenBucket(down)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := b.Open(ctx, "ab/x.jpg", true); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Fatalf("open on a dead endpoint: %v", err)
	}
	if _, err := b.Stat(ctx, "ab/x.jpg"); !errors.Is(err, blobstore.ErrUnavailable) || blobstore.IsRefusal(err) {
		t.Fatalf("stat on a dead endpoint: %v", err)
	}
	missing, err := blobstore.OpenBucket(BucketSettings(srv, "no-such-bucket-here", ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := missing.Check(ctx); !errors.Is(err, blobstore.ErrUnavailable) || !blobstore.IsRefusal(err) {
		t.Fatalf("check of a missing bucket: %v", err)
	}
	if err := newBucket(t, "").Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// The origins of browser URLs, which pages must allow: the endpoint's for
// path-style addressing, the bucket's host for virtual-host style, both
// when the client chooses; none when artifacts are streamed.
func TestFilesBrowserOrigins(t *testing.T) {
	t.Parallel()
	for style, want := range map[string]string{"true": "https://s3.example:9000", "false": "https://files.s3.example:9000",
		"": "https://s3.example:9000 https://files.s3.example:9000"} {
		f, err := blobstore.Open(config.Config{DataBucket: config.DataBucket{Endpoint: "http://10.0.0.5:9000", Name: "files",
			PathStyle: style, BrowserEndpoint: "https://s3.example:9000", URLTTL: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(f.BrowserOrigins, " "); got != want || f.URLTTL != time.Minute {
			t.Errorf("path style %q: origins %q, want %q", style, got, want)
		}
	}
	f, err := blobstore.Open(config.Config{DataBucket: config.DataBucket{Endpoint: "http://10.0.0.5:9000", Name: "files"}})
	if err != nil || f.BrowserOrigins != nil || f.URLTTL != 0 {
		t.Fatalf("streamed: %+v %v", f, err)
	}
}
