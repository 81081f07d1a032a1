package storage_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/storage"
)

func openFS(t *testing.T, dir string) storage.Location {
	t.Helper()
	loc, err := storage.Open(storage.KindFilesystem, map[string]string{"path": dir}, storage.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if err := loc.Check(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestFilesystemConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	writeFile(t, file, "x")

	_, err := storage.Open(storage.KindFilesystem, map[string]string{}, storage.Env{})
	wantConfigError(t, err, "path")
	_, err = storage.Open(storage.KindFilesystem, map[string]string{"path": "relative/dir"}, storage.Env{})
	wantConfigError(t, err, "path")
	_, err = storage.Open(storage.KindFilesystem, map[string]string{"path": dir, "bucket": "x"}, storage.Env{})
	wantConfigError(t, err, "bucket")

	for name, p := range map[string]string{"missing": filepath.Join(dir, "nope"), "file": file} {
		loc, err := storage.Open(storage.KindFilesystem, map[string]string{"path": p}, storage.Env{})
		if err != nil {
			t.Fatalf("%s: Open: %v", name, err)
		}
		wantConfigError(t, loc.Check(testCtx(t)), "path")
	}
}

func TestFilesystemContainers(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"alpha", "beta", "beta2", "gamma", ".hidden"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(base, "file-not-container"), "x")
	// A symlinked directory is not a container, whether it points inside
	// or outside the root.
	if err := os.Symlink(outside, filepath.Join(base, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "alpha"), filepath.Join(base, "alias")); err != nil {
		t.Fatal(err)
	}
	loc := openFS(t, base)
	ctx := testCtx(t)

	var got []string
	cursor := ""
	for {
		page, next, err := loc.ListContainers(ctx, "", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	if want := []string{"alpha", "beta", "beta2", "gamma"}; !slices.Equal(got, want) {
		t.Fatalf("containers %v, want %v", got, want)
	}
	page, next, err := loc.ListContainers(ctx, "beta", "", 10)
	if err != nil || !slices.Equal(page, []string{"beta", "beta2"}) || next != "" {
		t.Fatalf("prefix beta: %v %q %v", page, next, err)
	}
	page, next, err = loc.ListContainers(ctx, "", "beta", 1)
	if err != nil || !slices.Equal(page, []string{"beta2"}) || next != "beta2" {
		t.Fatalf("after beta: %v %q %v", page, next, err)
	}

	for _, c := range []string{"escape", "alias", "nope", "file-not-container"} {
		_, _, err := loc.ListItems(ctx, c, "", 10)
		wantErr(t, err, storage.ErrNotFound)
	}
	for _, c := range []string{"..", ".", "", ".hidden", "a/b", "../" + filepath.Base(outside)} {
		_, _, err := loc.ListItems(ctx, c, "", 10)
		wantErr(t, err, storage.ErrBadPath)
	}
}

// TestFilesystemPaging lists a tree with names chosen to break naive
// orderings ("a-c" sorts before "a/b" byte-wise, but a directory walk that
// sorts names visits "a" first) with many limits, and from arbitrary
// cursors: every file exactly once, in byte order.
func TestFilesystemPaging(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	c := filepath.Join(base, "c")
	want := []string{
		"0", "A", "Z", "a", "a b", "a-c", "a.b", "a/b", "a/b-", "a/b/c", "a/b/d/e/f",
		"a0", "ab/x", "b/a/a", "b/a-/a", "b/a0", "z/z/z", "ä", "日本/語",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 150 {
		want = append(want, fmt.Sprintf("gen/d%02d/f%03d", rng.IntN(12), i))
	}
	slices.Sort(want)
	want = slices.Compact(want)
	// "a/b" above is a file but "a/b/c" needs a directory a/b: drop the
	// names that must be directories, keep the rest as files.
	var files []string
	for _, p := range want {
		if !isDirIn(p, want) {
			files = append(files, p)
			writeFile(t, filepath.Join(c, filepath.FromSlash(p)), "content of "+p)
		}
	}
	want = files
	// Things that are not listed: hidden names, empty directories, symlinks.
	writeFile(t, filepath.Join(c, ".hidden"), "x")
	writeFile(t, filepath.Join(c, "a", ".upload-123.tmp"), "x")
	writeFile(t, filepath.Join(c, ".git", "config"), "x")
	if err := os.MkdirAll(filepath.Join(c, "empty", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(c, "0"), filepath.Join(c, "link")); err != nil {
		t.Fatal(err)
	}
	loc := openFS(t, base)

	for _, limit := range []int{1, 2, 3, 7, 50, 1000} {
		got := listAll(t, loc, "c", "", limit)
		if !slices.Equal(paths(got), want) {
			t.Fatalf("limit %d:\n got %q\nwant %q", limit, paths(got), want)
		}
		for _, e := range got {
			if e.Size != int64(len("content of "+e.Path)) || e.ETag == "" || e.LastModified.IsZero() {
				t.Fatalf("entry %+v", e)
			}
		}
	}
	// Cursors that are not listed paths still resume at the right place.
	for _, cursor := range []string{"a", "a/", "a/b/d", "a/zzz", "b", "gen/d05/", "m", "zzzz", "日本/"} {
		got := paths(listAll(t, loc, "c", cursor, 4))
		var exp []string
		for _, p := range want {
			if p > cursor {
				exp = append(exp, p)
			}
		}
		if !slices.Equal(got, exp) {
			t.Fatalf("from %q:\n got %q\nwant %q", cursor, got, exp)
		}
	}
	// limit <= 0 gets a default page rather than everything or nothing.
	page, _, err := loc.ListItems(testCtx(t), "c", "", 0)
	if err != nil || len(page) != min(len(want), storage.DefaultPageSize) {
		t.Fatalf("limit 0: %d entries, %v", len(page), err)
	}
}

func isDirIn(p string, all []string) bool {
	for _, q := range all {
		if len(q) > len(p) && q[:len(p)] == p && q[len(p)] == '/' {
			return true
		}
	}
	return false
}

func TestFilesystemStatOpenETag(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	name := filepath.Join(base, "c", "dir", "f.txt")
	writeFile(t, name, "hello")
	loc := openFS(t, base)
	ctx := testCtx(t)

	e1, err := loc.Stat(ctx, "c", "dir/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	if e1.Path != "dir/f.txt" || e1.Size != 5 || len(e1.ETag) != 32 {
		t.Fatalf("entry %+v", e1)
	}
	if got := readAll(t, mustOpen(t, loc, "c", "dir/f.txt")); got != "hello" {
		t.Fatalf("content %q", got)
	}
	// Stable while unchanged, and the same from listing and Stat.
	again, _ := loc.Stat(ctx, "c", "dir/f.txt")
	listed := listAll(t, loc, "c", "", 10)
	if again.ETag != e1.ETag || len(listed) != 1 || listed[0].ETag != e1.ETag {
		t.Fatalf("etag not stable: %s %s %+v", e1.ETag, again.ETag, listed)
	}

	// Same size, rewritten in place with a new mtime.
	writeFile(t, name, "HELLO")
	mt := time.Now().Add(time.Hour)
	if err := os.Chtimes(name, mt, mt); err != nil {
		t.Fatal(err)
	}
	e2, _ := loc.Stat(ctx, "c", "dir/f.txt")
	if e2.ETag == e1.ETag {
		t.Fatal("etag unchanged after an in-place rewrite")
	}
	// Same size and mtime, replaced by rename: only the inode differs.
	tmp := filepath.Join(base, "c", "dir", "tmp")
	writeFile(t, tmp, "hallo")
	if err := os.Chtimes(tmp, mt, mt); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
	e3, _ := loc.Stat(ctx, "c", "dir/f.txt")
	if e3.ETag == e2.ETag || !e3.LastModified.Equal(e2.LastModified) {
		t.Fatalf("etag unchanged after a replace by rename: %+v %+v", e2, e3)
	}

	p, ok := loc.LocalPath("c", "dir/f.txt")
	if !ok || p != name {
		t.Fatalf("LocalPath = %q, %v", p, ok)
	}
	for _, bad := range [][2]string{{"c", "../c/dir/f.txt"}, {"..", "c/dir/f.txt"}, {"c", "/etc/passwd"}, {"c", ""}} {
		if p, ok := loc.LocalPath(bad[0], bad[1]); ok {
			t.Fatalf("LocalPath(%q, %q) = %q", bad[0], bad[1], p)
		}
	}

	// Files (a batch's reads) opens the file Stat describes.
	files := openFiles(t, loc, "c")
	f, e4, err := files.Open("dir/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, f); got != "hallo" || e4 != e3 {
		t.Fatalf("Files.Open: %q %+v, want %+v", got, e4, e3)
	}
	// Files.Read reads it whole up to a limit, once the entry is wanted.
	content, e5, err := files.Read("dir/f.txt", 5, nil)
	if err != nil || string(content) != "hallo" || e5 != e3 {
		t.Fatalf("Files.Read: %q %+v %v, want %+v", content, e5, err, e3)
	}
	content, e5, err = files.Read("dir/f.txt", 4, nil)
	if err != nil || content != nil || e5 != e3 {
		t.Fatalf("Files.Read over the limit: %q %+v %v", content, e5, err)
	}
	var seen storage.Entry
	content, e5, err = files.Read("dir/f.txt", 5, func(e storage.Entry) bool { seen = e; return false })
	if err != nil || content != nil || e5 != e3 || seen != e3 {
		t.Fatalf("Files.Read not wanted: %q %+v %+v %v", content, e5, seen, err)
	}
	writeFile(t, filepath.Join(base, "c", "empty"), "")
	if content, e, err := files.Read("empty", 5, nil); err != nil || content == nil || len(content) != 0 || e.Size != 0 {
		t.Fatalf("Files.Read of an empty file: %q %+v %v", content, e, err)
	}

	for _, p := range []string{"dir/missing", "missing/f.txt", "dir", "dir/f.txt/x"} {
		_, err := loc.Stat(ctx, "c", p)
		wantErr(t, err, storage.ErrNotFound)
		_, err = loc.Open(ctx, "c", p)
		wantErr(t, err, storage.ErrNotFound)
		_, _, err = files.Open(p)
		wantErr(t, err, storage.ErrNotFound)
		_, _, err = files.Read(p, 5, nil)
		wantErr(t, err, storage.ErrNotFound)
	}
	for _, p := range []string{"../c/dir/f.txt", "dir/../dir/f.txt", "./dir/f.txt", "dir//f.txt", "/dir/f.txt", "", "dir/.f", "a\x00b"} {
		_, err := loc.Stat(ctx, "c", p)
		wantErr(t, err, storage.ErrBadPath)
		_, err = loc.Open(ctx, "c", p)
		wantErr(t, err, storage.ErrBadPath)
		_, _, err = files.Open(p)
		wantErr(t, err, storage.ErrBadPath)
		_, _, err = files.Read(p, 5, nil)
		wantErr(t, err, storage.ErrBadPath)
	}
	for _, c := range []string{"missing", "..", "c/dir"} {
		if _, err := loc.(storage.FilesOpener).Files(c); err == nil {
			t.Fatalf("Files(%q) opened", c)
		}
	}
}

// openFiles opens a container of a local location for a batch of reads.
func openFiles(t *testing.T, loc storage.Location, container string) *storage.Files {
	t.Helper()
	fo, ok := loc.(storage.FilesOpener)
	if !ok {
		t.Fatalf("%T does not open Files", loc)
	}
	files, err := fo.Files(container)
	if err != nil {
		t.Fatalf("Files(%s): %v", container, err)
	}
	t.Cleanup(func() { files.Close() })
	return files
}

func mustOpen(t *testing.T, loc storage.Location, container, p string) interface {
	Read([]byte) (int, error)
	Close() error
} {
	t.Helper()
	rc, err := loc.Open(testCtx(t), container, p)
	if err != nil {
		t.Fatalf("Open(%s, %s): %v", container, p, err)
	}
	return rc
}

// TestFilesystemSymlinkEscape plants symlinks to a secret outside the root
// and into a sibling container: none is listed, stat'ed or opened.
func TestFilesystemSymlinkEscape(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret")
	writeFile(t, filepath.Join(base, "c", "ok.txt"), "ok")
	writeFile(t, filepath.Join(base, "d", "other.txt"), "other")
	links := map[string]string{
		"c/dirlink":  outside,
		"c/filelink": filepath.Join(outside, "secret.txt"),
		"c/rel":      "../../" + filepath.Base(outside),
		"c/sibling":  "../d",
		"c/inside":   "ok.txt",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(l))); err != nil {
			t.Fatal(err)
		}
	}
	loc := openFS(t, base)
	ctx := testCtx(t)

	if got := paths(listAll(t, loc, "c", "", 10)); !slices.Equal(got, []string{"ok.txt"}) {
		t.Fatalf("listed %q", got)
	}
	for _, p := range []string{"dirlink/secret.txt", "filelink", "rel/secret.txt", "sibling/other.txt", "inside", "dirlink"} {
		if _, err := loc.Stat(ctx, "c", p); err == nil {
			t.Fatalf("Stat(%s) succeeded", p)
		}
		if rc, err := loc.Open(ctx, "c", p); err == nil {
			t.Fatalf("Open(%s) succeeded: %q", p, readAll(t, rc))
		}
		if f, _, err := openFiles(t, loc, "c").Open(p); err == nil {
			t.Fatalf("Files.Open(%s) succeeded: %q", p, readAll(t, f))
		}
		if content, _, err := openFiles(t, loc, "c").Read(p, 1<<20, nil); err == nil {
			t.Fatalf("Files.Read(%s) succeeded: %q", p, content)
		}
	}
}

// TestFilesystemManyFiles checks a flat directory of several thousand files
// pages correctly; it is the shape (one big folder) where re-reading per page
// matters most.
func TestFilesystemManyFiles(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 3000 {
		n := fmt.Sprintf("f%05d.jpg", i)
		want = append(want, n)
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := paths(listAll(t, openFS(t, base), "c", "", 1000))
	if !slices.Equal(got, want) {
		t.Fatalf("got %d files, want %d", len(got), len(want))
	}
}

// TestFilesSkipsSpecialFiles: a FIFO planted where a file was listed is
// neither opened (which would block) nor read; a directory neither.
func TestFilesSkipsSpecialFiles(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "c", "ok.txt"), "ok")
	if err := syscall.Mkfifo(filepath.Join(base, "c", "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	files := openFiles(t, openFS(t, base), "c")
	open := map[string]func(p string) error{
		"Open": func(p string) error { _, _, err := files.Open(p); return err },
		"Read": func(p string) error { _, _, err := files.Read(p, 1<<20, nil); return err },
	}
	for name, open := range open {
		done := make(chan error, 1)
		go func() { done <- open("fifo") }()
		select {
		case err := <-done:
			wantErr(t, err, storage.ErrNotFound)
		case <-time.After(time.Minute): // blocked for good: a FIFO with no writer
			t.Fatalf("Files.%s blocked on a FIFO", name)
		}
		if err := open("."); err == nil {
			t.Fatalf("Files.%s opened the container directory", name)
		}
	}
	f, e, err := files.Open("ok.txt")
	if err != nil || e.Size != 2 || readAll(t, f) != "ok" {
		t.Fatalf("ok.txt: %+v %v", e, err)
	}
	if content, e, err := files.Read("ok.txt", 2, nil); err != nil || e.Size != 2 || string(content) != "ok" {
		t.Fatalf("ok.txt read: %q %+v %v", content, e, err)
	}
}
