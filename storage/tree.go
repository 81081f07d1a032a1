package storage

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// tree implements the listing and reading side shared by the filesystem and
// uploadstore kinds: dir is an absolute directory whose immediate, visible,
// real (non-symlink) sub-directories are the containers.
//
// Every access below a container goes through an os.Root opened on that
// container, so a symlink planted anywhere in the tree cannot lead outside
// the container, and the tree never follows symlinks it lists: they are
// skipped. Roots are opened per call and closed before returning because a
// Location has no Close and may be dropped at any time.
type tree struct {
	dir string
}

// dirent is one listed name with its sort key: directories sort as
// "name/", so that a depth-first walk over keys in byte order yields full
// paths in byte order ("a-c" < "a/b" because '-' < '/').
type dirent struct {
	name  string
	key   string
	isDir bool
}

// ListContainers implements Location.
func (t tree) ListContainers(ctx context.Context, prefix, cursor string, limit int) ([]string, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	ents, err := os.ReadDir(t.dir)
	if err != nil {
		return nil, "", fmt.Errorf("list containers: %w", err)
	}
	var names []string
	for _, e := range ents {
		// e.Type() is from readdir: a symlink to a directory is ModeSymlink,
		// not a directory, so it is skipped here.
		if e.Type().IsDir() && checkContainerName(e.Name(), false) == nil {
			names = append(names, escapeName(e.Name()))
		}
	}
	slices.Sort(names) // os.ReadDir sorts already; keep the contract explicit
	page, next := pageNames(names, prefix, cursor, limit)
	return page, next, nil
}

// openContainer opens an os.Root confined to the container directory.
func (t tree) openContainer(container string) (*os.Root, error) {
	if err := checkContainerName(container, false); err != nil {
		return nil, err
	}
	raw, ok := unescapePath(container)
	if !ok {
		return nil, fmt.Errorf("container %q: %w", container, ErrNotFound)
	}
	// Lstat first so that a container that is a symlink is as absent as it
	// is from ListContainers; opening through the tree's own Root keeps a
	// symlink swapped in after the Lstat from pointing outside the tree.
	fi, err := os.Lstat(filepath.Join(t.dir, raw))
	if err != nil {
		if isMissing(err) {
			return nil, fmt.Errorf("container %q: %w", container, ErrNotFound)
		}
		return nil, fmt.Errorf("container %q: %w", container, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("container %q is not a directory: %w", container, ErrNotFound)
	}
	top, err := os.OpenRoot(t.dir)
	if err != nil {
		return nil, fmt.Errorf("open location root: %w", err)
	}
	defer top.Close()
	r, err := top.OpenRoot(raw)
	if err != nil {
		if isMissing(err) {
			return nil, fmt.Errorf("container %q: %w", container, ErrNotFound)
		}
		return nil, fmt.Errorf("open container %q: %w", container, err)
	}
	return r, nil
}

// ListItems implements Location. It walks the container depth-first in key
// order and stats only the entries of the page, so a page costs reading the
// directories along the cursor's path plus those the page covers, never a
// stat of every file.
func (t tree) ListItems(ctx context.Context, container, cursor string, limit int) ([]Entry, string, error) {
	limit = clampLimit(limit)
	r, err := t.openContainer(container)
	if err != nil {
		return nil, "", err
	}
	defer r.Close()

	// One more than the page tells whether a next page exists without
	// handing out a cursor that leads to an empty page.
	var paths []string
	if err := walkTree(ctx, r, "", cursor, limit+1, &paths); err != nil {
		return nil, "", fmt.Errorf("list container %q: %w", container, err)
	}
	next := ""
	if len(paths) > limit {
		paths = paths[:limit]
		next = paths[limit-1]
	}
	entries := make([]Entry, 0, len(paths))
	// The paths of a directory are consecutive (byte order, and a
	// directory's key ends in "/"): stat each run in its directory.
	for i := 0; i < len(paths); {
		dir := path.Dir(paths[i])
		j := i + 1
		for j < len(paths) && path.Dir(paths[j]) == dir {
			j++
		}
		// The names on disk of the run; each calls back in their order, so
		// the k-th is listed as run[k].
		run := paths[i:j]
		names := make([]string, len(run))
		for k, p := range run {
			names[k], _ = unescapePath(path.Base(p)) // listed: always an escape
		}
		rawDir, _ := unescapePath(dir)
		k := 0
		err := lstatEach(r, rawDir, names, func(_ string, fi fs.FileInfo, err error) error {
			listed := run[k]
			k++
			if err != nil {
				if isMissing(err) {
					return nil // removed since the directory was read
				}
				return fmt.Errorf("stat %s/%s: %w", container, listed, err)
			}
			if !fi.Mode().IsRegular() {
				return nil // replaced by something else since the directory was read
			}
			entries = append(entries, entryOf(listed, fi))
			return nil
		})
		if err != nil {
			return nil, "", err
		}
		i = j
	}
	return entries, next, nil
}

// lstatEachInRoot is lstatEach through r.Lstat, path by path.
func lstatEachInRoot(r *os.Root, dir string, names []string, each func(name string, fi fs.FileInfo, err error) error) error {
	for _, n := range names {
		fi, err := r.Lstat(path.Join(dir, n))
		if err := each(n, fi, err); err != nil {
			return err
		}
	}
	return nil
}

// statInfo is a file's lstat as fs.FileInfo, made by lstatEach.
type statInfo struct {
	name  string
	size  int64
	mtime time.Time
	ino   uint64
	mode  fs.FileMode
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.size }
func (s *statInfo) ModTime() time.Time { return s.mtime }
func (s *statInfo) Mode() fs.FileMode  { return s.mode }
func (s *statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s *statInfo) Sys() any           { return nil }

// walkTree appends to out, in byte order, the paths of regular files below
// dir that sort after cursor, until out holds want paths.
func walkTree(ctx context.Context, r *os.Root, dir, cursor string, want int, out *[]string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := readDir(r, dir)
	if err != nil {
		if dir != "" && isMissing(err) {
			return nil // removed since its parent was read
		}
		return err
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	// Drop what sorts before the cursor before sorting the rest: a file
	// whose path is <= cursor, and a directory whose every path is, i.e.
	// whose key sorts before the cursor without being a prefix of it. A
	// directory we descend into either holds the cursor (rel is the part of
	// it below this directory) or sorts wholly after it (keep everything).
	if rel, under := strings.CutPrefix(cursor, prefix); under {
		ents = slices.DeleteFunc(ents, func(e dirent) bool {
			return e.key <= rel && !(e.isDir && strings.HasPrefix(rel, e.key))
		})
	}
	// A page needs only the first few entries in key order: heapify (O(n))
	// and pop them, rather than sort a directory of 100k names per page.
	h := direntHeap(ents)
	heap.Init(&h)
	for h.Len() > 0 {
		e := heap.Pop(&h).(dirent)
		full := prefix + e.name
		if !e.isDir {
			*out = append(*out, full)
			if len(*out) >= want {
				return nil
			}
			continue
		}
		if err := walkTree(ctx, r, full, cursor, want, out); err != nil {
			return err
		}
		if len(*out) >= want {
			return nil
		}
	}
	return nil
}

// direntHeap is a min-heap of entries by key.
type direntHeap []dirent

func (h direntHeap) Len() int           { return len(h) }
func (h direntHeap) Less(i, j int) bool { return h[i].key < h[j].key }
func (h direntHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *direntHeap) Push(x any)        { *h = append(*h, x.(dirent)) }
func (h *direntHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// readDir lists the visible directories and regular files of dir, unsorted.
// Symlinks, devices, FIFOs and sockets are skipped: a FIFO would block a
// reader, and symlinks could alias files or leave the container.
func readDir(r *os.Root, dir string) ([]dirent, error) {
	name, _ := unescapePath(dir) // built from listed names: always an escape
	if name == "" {
		name = "."
	}
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := readDirTypes(f)
	if err != nil {
		return nil, err
	}
	out := make([]dirent, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if n == "" || n[0] == '.' {
			continue // hidden, including the upload store's temporary files
		}
		n = escapeName(n)
		switch t := e.Type(); {
		case t.IsDir():
			out = append(out, dirent{name: n, key: n + "/", isDir: true})
		case t.IsRegular():
			out = append(out, dirent{name: n, key: n})
		}
	}
	return out, nil
}

// Stat implements Location.
func (t tree) Stat(ctx context.Context, container, p string) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	if err := checkItemPath(p, false); err != nil {
		return Entry{}, err
	}
	raw, err := diskPath(container, p)
	if err != nil {
		return Entry{}, err
	}
	r, err := t.openContainer(container)
	if err != nil {
		return Entry{}, err
	}
	defer r.Close()
	fi, err := lstatRegular(r, container, p, raw)
	if err != nil {
		return Entry{}, err
	}
	return entryOf(p, fi), nil
}

// Open implements Location.
func (t tree) Open(ctx context.Context, container, p string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkItemPath(p, false); err != nil {
		return nil, err
	}
	raw, err := diskPath(container, p)
	if err != nil {
		return nil, err
	}
	r, err := t.openContainer(container)
	if err != nil {
		return nil, err
	}
	// The open file stays valid after its Root is closed.
	defer r.Close()
	f, _, err := openRegular(r, container, p, raw)
	return f, err
}

// openRegular opens a regular file below r (p as listed, raw its name on
// disk) and returns it with its FileInfo; ErrNotFound for anything else
// (absent, directory, symlink...).
func openRegular(r *os.Root, container, p, raw string) (*os.File, fs.FileInfo, error) {
	lfi, err := lstatRegular(r, container, p, raw)
	if err != nil {
		return nil, nil, err
	}
	f, err := r.Open(raw)
	if err != nil {
		if isMissing(err) {
			return nil, nil, fmt.Errorf("open %s/%s: %w", container, p, ErrNotFound)
		}
		return nil, nil, fmt.Errorf("open %s/%s: %w", container, p, err)
	}
	// Root.Open follows a symlink that stays inside the container. If one
	// was swapped in after the Lstat, the opened file is not the one we
	// checked: refuse, as listing would have skipped it.
	ffi, err := f.Stat()
	if err != nil || !os.SameFile(lfi, ffi) {
		f.Close()
		return nil, nil, fmt.Errorf("open %s/%s: changed while opening: %w", container, p, ErrNotFound)
	}
	return f, ffi, nil
}

// Files reads many files of one container: the container is reached once
// (one os.Root), not once per file. Close releases it.
type Files struct {
	container string
	root      *os.Root
	dir       *os.File // the container directory, for openBeneath
}

// Files opens a container of a filesystem or upload store location for
// reading many of its files (the worker harvesting a batch).
func (t tree) Files(container string) (*Files, error) {
	r, err := t.openContainer(container)
	if err != nil {
		return nil, err
	}
	dir, err := r.Open(".")
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open container %q: %w", container, err)
	}
	return &Files{container: container, root: r, dir: dir}, nil
}

// Open opens one regular file and describes it, with the same checks as
// Location.Open: ErrBadPath for an unacceptable path, ErrNotFound for
// anything but a regular file.
func (f *Files) Open(p string) (*os.File, Entry, error) {
	if err := checkItemPath(p, false); err != nil {
		return nil, Entry{}, err
	}
	raw, err := diskPath(f.container, p)
	if err != nil {
		return nil, Entry{}, err
	}
	if file, ok, err := openBeneath(f.dir, raw); ok {
		if err != nil {
			return nil, Entry{}, fmt.Errorf("open %s/%s: %w", f.container, p, err)
		}
		fi, err := file.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			file.Close()
			return nil, Entry{}, fmt.Errorf("open %s/%s: not a regular file: %w", f.container, p, ErrNotFound)
		}
		return file, entryOf(p, fi), nil
	}
	file, fi, err := openRegular(f.root, f.container, p, raw)
	if err != nil {
		return nil, Entry{}, err
	}
	return file, entryOf(p, fi), nil
}

// Read reads one regular file whole when it is at most limit bytes and
// want (nil: always) wants it once it has seen the file's entry; otherwise
// content is nil. The checks and errors are Open's; a file that shrank
// while read is an error (its item is tried again).
func (f *Files) Read(p string, limit int64, want func(Entry) bool) ([]byte, Entry, error) {
	if err := checkItemPath(p, false); err != nil {
		return nil, Entry{}, err
	}
	raw, err := diskPath(f.container, p)
	if err != nil {
		return nil, Entry{}, err
	}
	if content, e, ok, err := readBeneath(f.dir, raw, limit, want); ok {
		switch {
		case errors.Is(err, errNotRegular):
			return nil, Entry{}, fmt.Errorf("open %s/%s: not a regular file: %w", f.container, p, ErrNotFound)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, Entry{}, fmt.Errorf("read %s/%s: %w", f.container, p, err)
		case err != nil:
			return nil, Entry{}, fmt.Errorf("open %s/%s: %w", f.container, p, err)
		}
		e.Path = p
		return content, e, nil
	}
	file, e, err := f.Open(p)
	if err != nil {
		return nil, Entry{}, err
	}
	defer file.Close()
	if e.Size > limit || (want != nil && !want(e)) {
		return nil, e, nil
	}
	content := make([]byte, e.Size)
	if _, err := io.ReadFull(file, content); err != nil {
		return nil, Entry{}, fmt.Errorf("read %s/%s: %w", f.container, p, err)
	}
	return content, e, nil
}

// errNotRegular: what a path names is not a regular file (Files.Read).
var errNotRegular = errors.New("not a regular file")

// Close releases the container.
func (f *Files) Close() error {
	f.dir.Close()
	return f.root.Close()
}

// A FilesOpener is a location kind whose files are local (filesystem,
// uploadstore): the worker reads a batch through Files.
type FilesOpener interface {
	Files(container string) (*Files, error)
}

// LocalPath returns the file's path on disk. Tools given it read the file
// directly; the worker passes only paths that Stat or listing returned, so
// the path names a regular file there, not a symlink.
func (t tree) LocalPath(container, p string) (string, bool) {
	if checkContainerName(container, false) != nil || checkItemPath(p, false) != nil {
		return "", false
	}
	rawContainer, ok := unescapePath(container)
	raw, ok2 := unescapePath(p)
	if !ok || !ok2 {
		return "", false
	}
	return filepath.Join(t.dir, rawContainer, filepath.FromSlash(raw)), true
}

// lstatRegular returns the FileInfo of a regular file (p as listed, raw
// its name on disk), ErrNotFound for anything else (absent, directory,
// symlink, device...).
func lstatRegular(r *os.Root, container, p, raw string) (fs.FileInfo, error) {
	fi, err := r.Lstat(raw)
	if err != nil {
		if isMissing(err) {
			return nil, fmt.Errorf("stat %s/%s: %w", container, p, ErrNotFound)
		}
		return nil, fmt.Errorf("stat %s/%s: %w", container, p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("stat %s/%s: not a regular file: %w", container, p, ErrNotFound)
	}
	return fi, nil
}

func entryOf(p string, fi fs.FileInfo) Entry {
	return Entry{Path: p, Size: fi.Size(), ETag: fileETag(fi), LastModified: fi.ModTime().UTC()}
}

// fileETag hashes what changes when a file is rewritten: its size, its
// modification time in nanoseconds (an in-place rewrite) and its inode (an
// atomic replace by rename, which may keep size and mtime). Reading the
// content would make listing cost the size of the data.
func fileETag(fi fs.FileInfo) string {
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(fi.Size()))
	binary.LittleEndian.PutUint64(b[8:], uint64(fi.ModTime().UnixNano()))
	binary.LittleEndian.PutUint64(b[16:], fileInode(fi))
	sum := sha256.Sum256(b[:])
	return hex.EncodeToString(sum[:16])
}

// isMissing reports errors meaning "nothing usable is there": absent, a
// path component that is not a directory, a symlink loop, or a symlink that
// os.Root refused because it leads outside the root.
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) ||
		errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, syscall.ELOOP) ||
		escapes(err)
}

// escapes reports os.Root's refusal to follow a symlink out of the root.
// The os package does not export that error; its text is stable API-wise
// (it is what users see) and this is the only way to tell it apart.
func escapes(err error) bool {
	return strings.Contains(err.Error(), "path escapes from parent")
}

// diskPath is the name on disk of p, a path as the tree lists it
// (escapeName): ErrNotFound for a path the tree would not list.
func diskPath(container, p string) (string, error) {
	raw, ok := unescapePath(p)
	if !ok {
		return "", fmt.Errorf("%s/%q: not a listed spelling: %w", container, p, ErrNotFound)
	}
	return raw, nil
}
