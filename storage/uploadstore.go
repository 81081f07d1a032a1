package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

// UploadStore is the "uploadstore" kind: the deployment's built-in file
// store under <DataDir>/uploadstore, listed like a filesystem location, plus
// Write and Remove for the upload endpoint.
//
// All writes go through an os.Root on the store directory: whatever
// symlinks exist inside the store, no write, rename or remove reaches a
// file outside it.
type UploadStore struct {
	tree
}

var _ Location = (*UploadStore)(nil)

// File modes for what the store creates: readable by the service's group
// (e.g. a backup or a sidecar tool), never by others.
const (
	uploadDirMode  fs.FileMode = 0o750
	uploadFileMode fs.FileMode = 0o640
)

// OpenUploadStore opens the store under env.DataDir, creating its directory
// if missing (the store exists once per deployment, from the first start).
func OpenUploadStore(env Env) (*UploadStore, error) {
	if env.DataDir == "" {
		return nil, errors.New("open upload store: DATA_DIR is not set")
	}
	dataDir, err := filepath.Abs(env.DataDir)
	if err != nil {
		return nil, fmt.Errorf("open upload store: %w", err)
	}
	dir := filepath.Join(dataDir, "uploadstore")
	if err := os.MkdirAll(dir, uploadDirMode); err != nil {
		return nil, fmt.Errorf("open upload store: %w", err)
	}
	return &UploadStore{tree{dir: dir}}, nil
}

// Dir is the store's directory.
func (s *UploadStore) Dir() string { return s.dir }

// Check verifies that the store directory exists and can be listed.
func (s *UploadStore) Check(ctx context.Context) error {
	return checkDir(ctx, s.dir, "path")
}

// Write stores r at relPath (see SplitUploadPath) and returns its container
// and entry. The content is streamed to a hidden temporary file in the
// target directory, synced, then renamed over the target, so readers see the
// old file or the complete new one, never a partial one, and concurrent
// writers of one path leave exactly one of their files. With limitBytes > 0,
// a body longer than limitBytes fails with ErrTooLarge and leaves nothing
// behind (parent directories created for it may remain).
func (s *UploadStore) Write(ctx context.Context, relPath string, r io.Reader, limitBytes int64) (container string, entry Entry, err error) {
	container, p, err := SplitUploadPath(relPath)
	if err != nil {
		return "", Entry{}, err
	}
	full := container + "/" + p
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return "", Entry{}, fmt.Errorf("write %s: %w", full, err)
	}
	defer root.Close()

	dir := path.Dir(full)
	if err := root.MkdirAll(dir, uploadDirMode); err != nil {
		if conflict(err) {
			return "", Entry{}, fmt.Errorf("write %s: %w: a parent is not a directory", full, ErrBadPath)
		}
		if escapes(err) {
			return "", Entry{}, fmt.Errorf("write %s: %w: a symlink in the store leads outside it", full, ErrBadPath)
		}
		return "", Entry{}, fmt.Errorf("write %s: create directories: %w", full, err)
	}

	tmp := dir + "/.upload-" + randomHex() + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, uploadFileMode)
	if err != nil {
		if escapes(err) {
			return "", Entry{}, fmt.Errorf("write %s: %w: a symlink in the store leads outside it", full, ErrBadPath)
		}
		return "", Entry{}, fmt.Errorf("write %s: create temporary file: %w", full, err)
	}
	// Until the rename succeeds, every way out removes the temporary file.
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			root.Remove(tmp)
		}
	}()

	src := io.Reader(ctxReader{ctx, r})
	if limitBytes > 0 {
		// One byte past the limit tells "exactly the limit" from "more".
		src = io.LimitReader(src, limitBytes+1)
	}
	n, err := io.Copy(f, src)
	if err != nil {
		return "", Entry{}, fmt.Errorf("write %s: %w", full, err)
	}
	if limitBytes > 0 && n > limitBytes {
		return "", Entry{}, fmt.Errorf("write %s: more than %d bytes: %w", full, limitBytes, ErrTooLarge)
	}
	if err := f.Sync(); err != nil {
		return "", Entry{}, fmt.Errorf("write %s: sync: %w", full, err)
	}
	// Stat the file we wrote, not the path: after the rename another writer
	// may already have replaced it. Rename keeps size, mtime and inode.
	fi, err := f.Stat()
	if err != nil {
		return "", Entry{}, fmt.Errorf("write %s: %w", full, err)
	}
	if err := f.Close(); err != nil {
		return "", Entry{}, fmt.Errorf("write %s: close: %w", full, err)
	}
	if err := root.Rename(tmp, full); err != nil {
		if conflict(err) {
			return "", Entry{}, fmt.Errorf("write %s: %w: the path is a directory", full, ErrBadPath)
		}
		if escapes(err) {
			return "", Entry{}, fmt.Errorf("write %s: %w: a symlink in the store leads outside it", full, ErrBadPath)
		}
		return "", Entry{}, fmt.Errorf("write %s: rename: %w", full, err)
	}
	renamed = true
	// Make the rename itself durable; a failure here does not undo the
	// write, which readers already see.
	if d, err := root.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return container, entryOf(p, fi), nil
}

// Remove deletes the file at relPath (see SplitUploadPath). Only regular
// files are removed; anything else is ErrNotFound, as listing never shows it.
func (s *UploadStore) Remove(ctx context.Context, relPath string) (container, path string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	container, p, err := SplitUploadPath(relPath)
	if err != nil {
		return "", "", err
	}
	full := container + "/" + p
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return "", "", fmt.Errorf("remove %s: %w", full, err)
	}
	defer root.Close()
	fi, err := root.Lstat(full)
	if err != nil {
		if isMissing(err) {
			return "", "", fmt.Errorf("remove %s: %w", full, ErrNotFound)
		}
		return "", "", fmt.Errorf("remove %s: %w", full, err)
	}
	if !fi.Mode().IsRegular() {
		return "", "", fmt.Errorf("remove %s: not a regular file: %w", full, ErrNotFound)
	}
	if err := root.Remove(full); err != nil {
		if isMissing(err) {
			return "", "", fmt.Errorf("remove %s: %w", full, ErrNotFound)
		}
		return "", "", fmt.Errorf("remove %s: %w", full, err)
	}
	return container, p, nil
}

// conflict reports errors meaning an existing file or directory is in the
// way of the path (a client error, not a server one).
func conflict(err error) bool {
	return errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) ||
		errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY)
}

func randomHex() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// ctxReader stops a long upload when its request is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
