package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/metaharvest/metaharvest/internal/blobstore"
)

// Uploads is the upload store as the upload endpoint uses it: a Location
// it also writes to and removes from. Either UploadStore (DATA_DIR) or
// BucketUploads (DATA_BUCKET).
type Uploads interface {
	Location
	// Write stores r at relPath (see SplitUploadPath) atomically and
	// returns its container and entry; a body longer than limitBytes (>
	// 0) fails with ErrTooLarge and leaves nothing behind.
	Write(ctx context.Context, relPath string, r io.Reader, limitBytes int64) (container string, entry Entry, err error)
	// Remove deletes the file at relPath; ErrNotFound when there is none.
	Remove(ctx context.Context, relPath string) (container, path string, err error)
}

var (
	_ Uploads     = (*UploadStore)(nil)
	_ Uploads     = (*BucketUploads)(nil)
	_ RangeReader = (*BucketUploads)(nil)
)

// OpenUploads opens the deployment's upload store: its bucket when
// env.UploadBucket is set, else DATA_DIR/uploadstore.
func OpenUploads(env Env) (Uploads, error) {
	if env.UploadBucket != nil {
		return &BucketUploads{b: env.UploadBucket}, nil
	}
	u, err := OpenUploadStore(env)
	if err != nil {
		return nil, err // not a nil *UploadStore in an interface
	}
	return u, nil
}

// BucketUploads is the "uploadstore" kind kept in a bucket, so that an
// upload received by any api replica is harvested by any worker: the key
// of a file is container/path under the bucket's uploadstore/ prefix. It
// is listed like the local store (containers are the first segments,
// items sorted by path, hidden names skipped) and read by ranges like an
// s3 location.
type BucketUploads struct {
	b *blobstore.Bucket
}

// maxUploadContainers bounds the listing of containers (first segments),
// which S3 cannot page by a cursor of our own.
const maxUploadContainers = 10000

// Check implements Location.
func (s *BucketUploads) Check(ctx context.Context) error {
	if err := s.b.Check(ctx); err != nil {
		return &ConfigError{Field: "kind", Problem: "the upload store's bucket does not answer"}
	}
	return nil
}

// ListContainers implements Location.
func (s *BucketUploads) ListContainers(ctx context.Context, prefix, cursor string, limit int) ([]string, string, error) {
	names, err := s.b.Dirs(ctx, maxUploadContainers)
	if err != nil {
		return nil, "", fmt.Errorf("list upload containers: %w", err)
	}
	page, next := pageNames(names, prefix, cursor, limit)
	return page, next, nil
}

// ListItems implements Location: a full page names its last path as the
// next cursor (see S3.ListItems).
func (s *BucketUploads) ListItems(ctx context.Context, container, cursor string, limit int) ([]Entry, string, error) {
	limit = clampLimit(limit)
	if err := checkContainerName(container, false); err != nil {
		return nil, "", err
	}
	after := ""
	if cursor != "" {
		after = container + "/" + cursor
	}
	page, err := s.b.List(ctx, container+"/", after, limit)
	if err != nil {
		return nil, "", fmt.Errorf("list %s: %w", container, err)
	}
	entries := make([]Entry, 0, len(page))
	last := ""
	for _, in := range page {
		p := strings.TrimPrefix(in.Key, container+"/")
		last = p
		entries = append(entries, uploadEntry(p, in))
	}
	next := ""
	if len(page) == limit {
		next = last
	}
	return entries, next, nil
}

// Stat implements Location.
func (s *BucketUploads) Stat(ctx context.Context, container, p string) (Entry, error) {
	key, err := uploadKey(container, p)
	if err != nil {
		return Entry{}, err
	}
	in, err := s.b.Stat(ctx, key)
	if err != nil {
		return Entry{}, uploadError("stat", key, err)
	}
	return uploadEntry(p, in), nil
}

// Open implements Location.
func (s *BucketUploads) Open(ctx context.Context, container, p string) (io.ReadCloser, error) {
	rc, _, err := s.ReadRange(ctx, container, p, 0, -1, "")
	return rc, err
}

// ReadRange implements RangeReader.
func (s *BucketUploads) ReadRange(ctx context.Context, container, p string, off, n int64, etag string) (io.ReadCloser, Entry, error) {
	key, err := uploadKey(container, p)
	if err != nil {
		return nil, Entry{}, err
	}
	if off < 0 {
		return nil, Entry{}, fmt.Errorf("read %s: negative offset %d", key, off)
	}
	rc, in, err := s.b.ReadRange(ctx, key, off, n, etag)
	if err != nil {
		return nil, Entry{}, uploadError("read", key, err)
	}
	return rc, uploadEntry(p, in), nil
}

// LocalPath implements Location: a bucket has none.
func (s *BucketUploads) LocalPath(string, string) (string, bool) { return "", false }

// Write implements Uploads with one upload (in parts for a large body):
// the object appears complete or not at all.
func (s *BucketUploads) Write(ctx context.Context, relPath string, r io.Reader, limitBytes int64) (string, Entry, error) {
	container, p, err := SplitUploadPath(relPath)
	if err != nil {
		return "", Entry{}, err
	}
	key := container + "/" + p
	if err := blobstore.CheckKey(key); err != nil {
		return "", Entry{}, fmt.Errorf("write %s: %w: %w", key, ErrBadPath, err)
	}
	src := io.Reader(ctxReader{ctx, r})
	if limitBytes > 0 {
		src = &limitedUpload{r: src, left: limitBytes}
	}
	if _, err := s.b.Put(ctx, key, src, -1); err != nil {
		return "", Entry{}, uploadError("write", key, err)
	}
	// The entry as a listing shows it, so that a walk finds the item
	// unchanged.
	in, err := s.b.Stat(ctx, key)
	if err != nil {
		return "", Entry{}, uploadError("write", key, err)
	}
	return container, uploadEntry(p, in), nil
}

// Remove implements Uploads.
func (s *BucketUploads) Remove(ctx context.Context, relPath string) (string, string, error) {
	container, p, err := SplitUploadPath(relPath)
	if err != nil {
		return "", "", err
	}
	key := container + "/" + p
	if _, err := s.b.Stat(ctx, key); err != nil {
		return "", "", uploadError("remove", key, err)
	}
	if err := s.b.Remove(ctx, []string{key}); err != nil {
		return "", "", uploadError("remove", key, err)
	}
	return container, p, nil
}

func uploadKey(container, p string) (string, error) {
	if err := checkContainerName(container, false); err != nil {
		return "", err
	}
	if err := checkItemPath(p, false); err != nil {
		return "", err
	}
	return container + "/" + p, nil
}

func uploadEntry(p string, in blobstore.Info) Entry {
	return Entry{Path: p, Size: in.Size, ETag: in.ETag, LastModified: in.Modified.UTC()}
}

// uploadError maps the store's errors onto the storage package's.
func uploadError(op, key string, err error) error {
	switch {
	case errors.Is(err, blobstore.ErrNotFound):
		return fmt.Errorf("%s %s: %w", op, key, ErrNotFound)
	case errors.Is(err, blobstore.ErrChanged):
		return fmt.Errorf("%s %s: %w", op, key, ErrChanged)
	case errors.Is(err, blobstore.ErrBadKey):
		return fmt.Errorf("%s %s: %w: %w", op, key, ErrBadPath, err)
	}
	return err
}

// limitedUpload fails with ErrTooLarge once more than left bytes were read.
type limitedUpload struct {
	r    io.Reader
	left int64
}

func (l *limitedUpload) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, fmt.Errorf("more bytes than the limit: %w", ErrTooLarge)
	}
	return n, err
}
