package blobstore

import (
	"context"
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

	"github.com/metaharvest/metaharvest/internal/ids"
)

// Dir is the local-directory kind. Reads go through an os.Root on the
// directory, so that a symlink planted inside it reaches no file outside.
type Dir struct {
	root string
}

var _ Store = (*Dir)(nil)

// File modes of what a Dir creates.
const (
	dirMode  fs.FileMode = 0o755
	fileMode fs.FileMode = 0o644
)

// NewDir is the store of the directory root, created on the first write.
func NewDir(root string) *Dir { return &Dir{root: root} }

// Root is the directory.
func (d *Dir) Root() string { return d.root }

// Kind implements Store.
func (d *Dir) Kind() string { return KindDirectory }

// String implements Store.
func (d *Dir) String() string { return "directory " + d.root }

// Path is where the file of key is (or would be) on disk.
func (d *Dir) Path(key string) string { return filepath.Join(d.root, filepath.FromSlash(key)) }

// Put implements Store: r goes to a hidden temporary file beside the
// target, synced, then renamed over it.
func (d *Dir) Put(ctx context.Context, key string, r io.Reader, size int64) (Info, error) {
	if err := CheckKey(key); err != nil {
		return Info{}, err
	}
	dst := d.Path(key)
	var info Info
	err := d.intoDir(dst, func() error {
		tmp := filepath.Join(filepath.Dir(dst), ".put-"+ids.New()+".tmp")
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
		if err != nil {
			return err
		}
		defer os.Remove(tmp) // after the rename: nothing there
		// The readers Put is given (a bucket's objects, uploads) end
		// with the context themselves.
		n, err := io.Copy(f, r)
		if err == nil {
			err = ctx.Err()
		}
		if err == nil && size >= 0 && n != size {
			err = fmt.Errorf("%d bytes, want %d: %w", n, size, io.ErrUnexpectedEOF)
		}
		if err == nil {
			err = f.Sync()
		}
		var fi fs.FileInfo
		if err == nil {
			fi, err = f.Stat()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := os.Rename(tmp, dst); err != nil {
			return err
		}
		info = dirInfo(key, fi)
		return nil
	})
	if err != nil {
		return Info{}, fmt.Errorf("put %s: %w", key, err)
	}
	return info, nil
}

// PutFile implements Store by a rename when path is on the directory's
// file system (the worker's temporary files are under DATA_DIR), else by
// Put.
func (d *Dir) PutFile(ctx context.Context, key, p string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	dst := d.Path(key)
	err := d.intoDir(dst, func() error { return os.Rename(p, dst) })
	if errors.Is(err, syscall.EXDEV) {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("put %s: %w", key, err)
		}
		defer f.Close()
		_, err = d.Put(ctx, key, f, -1)
		return err
	}
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// intoDir makes dst's directory and runs write, again when a Remove
// pruned the directory meanwhile (see Remove).
func (d *Dir) intoDir(dst string, write func() error) error {
	var err error
	for range 3 {
		if err = os.MkdirAll(filepath.Dir(dst), dirMode); err != nil {
			return err
		}
		if err = write(); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

// Open implements Store.
func (d *Dir) Open(ctx context.Context, key string, _ bool) (Object, error) {
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(d.root)
	if err != nil {
		return nil, d.fail("open", key, err)
	}
	defer root.Close()
	f, err := root.Open(key)
	if err != nil {
		return nil, d.fail("open", key, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, d.fail("open", key, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: not a regular file: %w", key, ErrNotFound)
	}
	return &dirObject{File: f, info: dirInfo(key, fi)}, nil
}

type dirObject struct {
	*os.File
	info Info
}

func (o *dirObject) Info() Info { return o.info }

// Stat implements Store.
func (d *Dir) Stat(ctx context.Context, key string) (Info, error) {
	o, err := d.Open(ctx, key, false)
	if err != nil {
		return Info{}, err
	}
	o.Close()
	return o.Info(), nil
}

// Remove implements Store, then removes the directories it left empty
// (up to the root): item directories do not pile up. A write into a
// directory removed meanwhile makes it again (intoDir).
func (d *Dir) Remove(ctx context.Context, keys []string) error {
	root, err := os.OpenRoot(d.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("remove: %w", err)
	}
	defer root.Close()
	var errs []error
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := CheckKey(key); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := root.Remove(key); err != nil && !missing(err) {
			errs = append(errs, fmt.Errorf("remove %s: %w", key, err))
			continue
		}
		for dir := path.Dir(key); dir != "."; dir = path.Dir(dir) {
			if root.Remove(dir) != nil {
				break // not empty (or gone)
			}
		}
	}
	return errors.Join(errs...)
}

// List implements Store by walking the tree in key order: in each
// directory, names are sorted as their keys sort (a directory's name with
// the "/" that follows it), and a subtree sorting before after is skipped
// without being read.
func (d *Dir) List(ctx context.Context, prefix, after string, limit int) ([]Info, error) {
	if limit <= 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(d.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	defer root.Close()
	var out []Info
	err = d.walk(ctx, root, "", prefix, after, limit, &out)
	if err != nil && !errors.Is(err, errListFull) {
		return nil, fmt.Errorf("list %s: %w", d.root, err)
	}
	return out, nil
}

var errListFull = errors.New("list full")

func (d *Dir) walk(ctx context.Context, root *os.Root, dir, prefix, after string, limit int, out *[]Info) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	name := dir
	if name == "" {
		name = "."
	}
	f, err := root.Open(name)
	if err != nil {
		if missing(err) {
			return nil
		}
		return err
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return err
	}
	type entry struct {
		key  string // the entry's key, with a "/" after a directory
		dir  bool
		name string
	}
	list := make([]entry, 0, len(entries))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue // temporary files
		}
		k := dir + e.Name()
		if e.IsDir() {
			k += "/"
		} else if !e.Type().IsRegular() {
			continue
		}
		list = append(list, entry{key: k, dir: e.IsDir(), name: e.Name()})
	}
	slices.SortFunc(list, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	for _, e := range list {
		// Only keys that can start with prefix, and sort after after.
		if !strings.HasPrefix(e.key, prefix) && !strings.HasPrefix(prefix, e.key) {
			continue
		}
		if e.dir {
			if e.key <= after && !strings.HasPrefix(after, e.key) {
				continue // the whole subtree sorts before after
			}
			if err := d.walk(ctx, root, e.key, prefix, after, limit, out); err != nil {
				return err
			}
			continue
		}
		if e.key <= after || !strings.HasPrefix(e.key, prefix) {
			continue
		}
		fi, err := root.Lstat(e.key)
		if err != nil {
			if missing(err) {
				continue
			}
			return err
		}
		*out = append(*out, dirInfo(e.key, fi))
		if len(*out) == limit {
			return errListFull
		}
	}
	return nil
}

// BrowserURL implements Store: a directory has none.
func (d *Dir) BrowserURL(context.Context, string, time.Duration, string) (string, error) {
	return "", ErrNoBrowserURL
}

func (d *Dir) fail(op, key string, err error) error {
	if missing(err) {
		return fmt.Errorf("%s %s: %w", op, key, ErrNotFound)
	}
	return fmt.Errorf("%s %s: %w", op, key, err)
}

// dirInfo describes a file as the directory kind does: its ETag is its
// size and modification time, which change whenever a file is put.
func dirInfo(key string, fi fs.FileInfo) Info {
	return Info{Key: key, Size: fi.Size(), ETag: fmt.Sprintf("%x-%x", fi.Size(), fi.ModTime().UnixNano()), Modified: fi.ModTime()}
}

// missing reports errors meaning "no such regular file here", including
// os.Root's refusal to follow a symlink out of the directory.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "path escapes from parent")
}
