package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/storage"
)

// newStore returns a store under base/data and base itself, so tests can
// check that nothing outside base/data/uploadstore changes.
func newStore(t *testing.T) (*storage.UploadStore, string) {
	t.Helper()
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "outside", "target.txt"), "outside")
	s, err := storage.OpenUploadStore(storage.Env{DataDir: filepath.Join(base, "data")})
	if err != nil {
		t.Fatal(err)
	}
	return s, base
}

func TestUploadStoreOpen(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	loc, err := storage.Open(storage.KindUploadStore, nil, storage.Env{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := loc.(*storage.UploadStore); !ok {
		t.Fatalf("Open returned %T", loc)
	}
	if fi, err := os.Stat(filepath.Join(dataDir, "uploadstore")); err != nil || !fi.IsDir() {
		t.Fatalf("store directory not created: %v", err)
	}
	if err := loc.Check(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	_, err = storage.Open(storage.KindUploadStore, map[string]string{"path": "/tmp"}, storage.Env{DataDir: dataDir})
	wantConfigError(t, err, "path")
	if _, err := storage.OpenUploadStore(storage.Env{}); err == nil {
		t.Fatal("no error without DATA_DIR")
	}
}

func TestUploadStoreWriteReadRemove(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := testCtx(t)

	c, e, err := s.Write(ctx, "photo.jpg", strings.NewReader("jpeg"), 0)
	if err != nil || c != storage.DefaultUploadContainer || e.Path != "photo.jpg" || e.Size != 4 {
		t.Fatalf("Write single segment: %q %+v %v", c, e, err)
	}
	c, e, err = s.Write(ctx, "shoot/day 1/clip.mov", strings.NewReader("movie"), 5)
	if err != nil || c != "shoot" || e.Path != "day 1/clip.mov" || e.Size != 5 {
		t.Fatalf("Write nested: %q %+v %v", c, e, err)
	}
	st, err := s.Stat(ctx, "shoot", "day 1/clip.mov")
	if err != nil || st != e {
		t.Fatalf("Stat %+v, want the written entry %+v (%v)", st, e, err)
	}
	if got := readAll(t, mustOpen(t, s, "shoot", "day 1/clip.mov")); got != "movie" {
		t.Fatalf("content %q", got)
	}
	lp, ok := s.LocalPath("shoot", "day 1/clip.mov")
	if b, err := os.ReadFile(lp); !ok || err != nil || string(b) != "movie" {
		t.Fatalf("LocalPath %q %v: %q %v", lp, ok, b, err)
	}
	containers, _, err := s.ListContainers(ctx, "", "", 10)
	if err != nil || !slices.Equal(containers, []string{"shoot", "uploads"}) {
		t.Fatalf("containers %v %v", containers, err)
	}

	// Overwrite: new content and a new etag.
	_, e2, err := s.Write(ctx, "shoot/day 1/clip.mov", strings.NewReader("MOVIE"), 0)
	if err != nil || e2.ETag == e.ETag {
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
	// A directory is not an item.
	_, _, err = s.Remove(ctx, "shoot/day 1")
	wantErr(t, err, storage.ErrNotFound)
}

func TestUploadStoreConflicts(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := testCtx(t)
	if _, _, err := s.Write(ctx, "c/a/b", strings.NewReader("x"), 0); err != nil {
		t.Fatal(err)
	}
	// A file where a directory must be, and a directory where the file must be.
	_, _, err := s.Write(ctx, "c/a/b/c", strings.NewReader("x"), 0)
	wantErr(t, err, storage.ErrBadPath)
	_, _, err = s.Write(ctx, "c/a", strings.NewReader("x"), 0)
	wantErr(t, err, storage.ErrBadPath)
	if got := paths(listAll(t, s, "c", "", 10)); !slices.Equal(got, []string{"a/b"}) {
		t.Fatalf("listed %q", got)
	}
	assertNoTemp(t, s)
}

// badUploadPaths are refused by SplitUploadPath, Write and Remove. The
// escaped forms are what a client sends; the router decodes them first.
var badUploadPaths = []string{
	"", "/", "/etc/passwd", "//server/share", "..", ".", "../x", "a/..", "a/../b", "a/../../x",
	"./a", "a/.", "a/./b", "a//b", "a/", "/a", "a\\b", "..\\..\\x", "c:\\windows",
	"a\x00b", "a\nb", "a\rb", "a\tb", "a\x1b[31m", "a\x7f", "a\u0085b", "\xff\xfe",
	"caf\U0010FFE9", // the escape of a name that is not UTF-8 (storage/names.go)
	".hidden", "a/.hidden", ".upload-x.tmp", "c/.git/config", "...",
	strings.Repeat("x", 256), "c/" + strings.Repeat("y", 4000),
	decoded("%2e%2e/x"), decoded("..%2fetc%2fpasswd"), decoded("a/..%2f..%2fx"),
	decoded("%2e%2e%5cx"), decoded("a%00b"), decoded("%2fetc"),
}

func decoded(s string) string {
	d, err := url.PathUnescape(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestUploadStoreBadPaths(t *testing.T) {
	t.Parallel()
	s, base := newStore(t)
	ctx := testCtx(t)
	// Something to remove, should a bad path resolve to it.
	if _, _, err := s.Write(ctx, "uploads/b", strings.NewReader("keep"), 0); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, base)
	for _, p := range badUploadPaths {
		t.Run(fmt.Sprintf("%q", p), func(t *testing.T) {
			_, _, err := storage.SplitUploadPath(p)
			wantErr(t, err, storage.ErrBadPath)
			_, _, err = s.Write(ctx, p, strings.NewReader("evil"), 0)
			wantErr(t, err, storage.ErrBadPath)
			_, _, err = s.Remove(ctx, p)
			wantErr(t, err, storage.ErrBadPath)
			if strings.Contains(err.Error(), "\x00") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("message carries raw control characters: %q", err)
			}
			sameSnapshot(t, "bad path "+fmt.Sprintf("%q", p), before, snapshot(t, base))
		})
	}
}

func TestSplitUploadPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		"a.jpg":           {"uploads", "a.jpg"},
		"c/a.jpg":         {"c", "a.jpg"},
		"c/d/e/f.mov":     {"c", "d/e/f.mov"},
		"uploads/x":       {"uploads", "x"},
		"é/日本 語.txt":      {"é", "日本 語.txt"},
		"c/a..b":          {"c", "a..b"},
		"c/a.":            {"c", "a."},
		"percent/%2e%2e":  {"percent", "%2e%2e"}, // not decoded twice: a literal name
		"c/" + "x y~!$&'": {"c", "x y~!$&'"},
	} {
		c, p, err := storage.SplitUploadPath(in)
		if err != nil || c != want[0] || p != want[1] {
			t.Fatalf("SplitUploadPath(%q) = %q, %q, %v; want %q", in, c, p, err, want)
		}
	}
}

// TestUploadStoreSymlinks plants symlinks inside the store pointing out of
// it; no write or remove through them touches anything outside.
func TestUploadStoreSymlinks(t *testing.T) {
	t.Parallel()
	s, base := newStore(t)
	ctx := testCtx(t)
	outside := filepath.Join(base, "outside")
	store := s.Dir()
	if err := os.MkdirAll(filepath.Join(store, "uploads"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"uploads/evil":   outside,
		"uploads/rel":    "../../../outside",
		"uploads/f":      filepath.Join(outside, "target.txt"),
		"escape":         outside,
		"uploads/inside": "../uploads",
	} {
		if err := os.Symlink(target, filepath.Join(store, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	outsideBefore := snapshot(t, outside)

	for _, p := range []string{"uploads/evil/x.txt", "uploads/evil/target.txt", "uploads/rel/target.txt", "escape/target.txt", "escape/new/x"} {
		_, _, err := s.Write(ctx, p, strings.NewReader("evil"), 0)
		if err == nil {
			t.Fatalf("Write(%s) succeeded", p)
		}
		wantErr(t, err, storage.ErrBadPath)
		if _, _, err := s.Remove(ctx, p); err == nil {
			t.Fatalf("Remove(%s) succeeded", p)
		}
	}
	// Removing a symlink item is refused: it is not a listed file.
	_, _, err := s.Remove(ctx, "uploads/f")
	wantErr(t, err, storage.ErrNotFound)
	// Writing over a symlink replaces the link itself, not its target.
	if _, _, err := s.Write(ctx, "uploads/f", strings.NewReader("mine"), 0); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(store, "uploads", "f")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("uploads/f after write: %v %v", fi, err)
	}
	sameSnapshot(t, "symlink attacks", outsideBefore, snapshot(t, outside))
	assertNoTemp(t, s)
}

func TestUploadStoreLimit(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := testCtx(t)
	if _, _, err := s.Write(ctx, "c/exact", strings.NewReader("0123456789"), 10); err != nil {
		t.Fatalf("exactly the limit: %v", err)
	}
	if _, _, err := s.Write(ctx, "c/keep", strings.NewReader("old"), 0); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.Write(ctx, "c/big", strings.NewReader("0123456789A"), 10)
	wantErr(t, err, storage.ErrTooLarge)
	_, _, err = s.Write(ctx, "c/keep", strings.NewReader("0123456789A"), 10)
	wantErr(t, err, storage.ErrTooLarge)
	_, _, err = s.Write(ctx, "c/new/dir/big", strings.NewReader(strings.Repeat("z", 1<<20)), 1000)
	wantErr(t, err, storage.ErrTooLarge)

	_, err = s.Stat(ctx, "c", "big")
	wantErr(t, err, storage.ErrNotFound)
	if got := readAll(t, mustOpen(t, s, "c", "keep")); got != "old" {
		t.Fatalf("refused overwrite changed the file: %q", got)
	}
	if got := paths(listAll(t, s, "c", "", 10)); !slices.Equal(got, []string{"exact", "keep"}) {
		t.Fatalf("listed %q", got)
	}
	assertNoTemp(t, s)
}

// failingReader fails mid-body, like a client that disconnects.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := min(len(p), r.n)
	r.n -= n
	return n, nil
}

func TestUploadStoreInterruptedWrite(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	_, _, err := s.Write(testCtx(t), "c/f", &failingReader{n: 100000}, 0)
	wantErr(t, err, io.ErrUnexpectedEOF)

	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	_, _, err = s.Write(ctx, "c/g", strings.NewReader("data"), 0)
	wantErr(t, err, context.Canceled)

	_, err = s.Stat(testCtx(t), "c", "f")
	wantErr(t, err, storage.ErrNotFound)
	assertNoTemp(t, s)
}

// TestUploadStoreConcurrentWrites races writers of one path: the survivor
// is one writer's complete content, never a mix or a truncation.
func TestUploadStoreConcurrentWrites(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := testCtx(t)
	const writers, size = 8, 256 << 10
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			_, _, err := s.Write(ctx, "c/same.bin", bytes.NewReader(bytes.Repeat([]byte{byte('a' + i)}, size)), 0)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := []byte(readAll(t, mustOpen(t, s, "c", "same.bin")))
	if len(got) != size || bytes.Count(got, got[:1]) != size {
		t.Fatalf("file of %d bytes, mixed content: %v", len(got), len(got) != size || bytes.Count(got, got[:1]) != size)
	}
	assertNoTemp(t, s)
}

// TestUploadStoreStreams writes a body far larger than any buffer the
// store may hold, and checks the allocations stay small: the body is
// streamed, not buffered.
func TestUploadStoreStreams(t *testing.T) {
	s, _ := newStore(t)
	const size = 64 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, e, err := s.Write(testCtx(t), "c/big", io.LimitReader(zeros{}, size), size)
	runtime.ReadMemStats(&after)
	if err != nil || e.Size != size {
		t.Fatalf("Write: %+v %v", e, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Fatalf("writing %d bytes allocated %d bytes", size, alloc)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func assertNoTemp(t *testing.T, s *storage.UploadStore) {
	t.Helper()
	err := filepath.Walk(s.Dir(), func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(fi.Name(), ".upload-") {
			return errors.New("temporary file left behind: " + p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
