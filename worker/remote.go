package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// remoteObject is one large object of a remote location (s3) being
// harvested. fetch read its first contentLimit bytes (head); the rest is
// read only when an extractor reads past them: hashes as it streams in
// (Input.Stream), or once into a temporary file when an extractor needs a
// path; extractors that read ranges are served by windows (rangedFile).
// Every GET after the first is pinned to the object's ETag.
type remoteObject struct {
	rr        storage.RangeReader
	container string
	path      string
	entry     storage.Entry
	head      []byte

	mu   sync.Mutex
	body io.ReadCloser // the rest, from len(head), once a reader got there
	pos  int64         // bytes of body consumed
	used bool          // the rest was read: a new stream needs a new GET
	read int64         // bytes received, from every GET
}

// stream implements extractors.Input.Stream: the first reader gets the
// head and then the rest; a later one (rare: extractors run one after the
// other, and only hashes reads to the end) a new GET.
func (o *remoteObject) stream(ctx context.Context, limit int64) (io.ReadCloser, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.used {
		return &replay{o: o, ctx: ctx}, nil
	}
	rc, e, err := o.rr.ReadRange(ctx, o.container, o.path, 0, limit, o.entry.ETag)
	if err != nil {
		return nil, err
	}
	if e.Size != o.entry.Size {
		rc.Close()
		return nil, fmt.Errorf("read %s: %w", o.path, storage.ErrChanged)
	}
	return &counted{r: rc, o: o}, nil
}

// close ends the GET of the rest, if one was started.
func (o *remoteObject) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.body != nil {
		o.body.Close()
		o.body = nil
	}
}

func (o *remoteObject) received() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.read
}

// errReplayLost: two readers of the object's first stream at once
// (extractors run one after the other, so only an abandoned one could).
var errReplayLost = errors.New("remote object read by two readers at once")

// replay reads the object from its start: the head, then the rest.
type replay struct {
	o   *remoteObject
	ctx context.Context
	off int64
}

func (r *replay) Read(p []byte) (int, error) {
	o := r.o
	o.mu.Lock()
	defer o.mu.Unlock()
	head := int64(len(o.head))
	if r.off < head {
		n := copy(p, o.head[r.off:])
		r.off += int64(n)
		return n, nil
	}
	if r.off >= o.entry.Size {
		return 0, io.EOF
	}
	if r.off != head+o.pos {
		return 0, errReplayLost
	}
	if o.body == nil {
		if o.used {
			return 0, errReplayLost
		}
		rc, e, err := o.rr.ReadRange(r.ctx, o.container, o.path, head, -1, o.entry.ETag)
		if err != nil {
			return 0, err
		}
		if e.Size != o.entry.Size {
			rc.Close()
			return 0, fmt.Errorf("read %s: %w", o.path, storage.ErrChanged)
		}
		o.body, o.used = rc, true
	}
	n, err := o.body.Read(p)
	o.pos += int64(n)
	o.read += int64(n)
	r.off += int64(n)
	if err == io.EOF && r.off < o.entry.Size {
		err = fmt.Errorf("read %s: %w", o.path, io.ErrUnexpectedEOF)
	}
	return n, err
}

// Close leaves the GET of the rest open: the object's cleanup closes it.
func (r *replay) Close() error { return nil }

// counted is a later GET of the object, counted in its bytes received.
type counted struct {
	r io.ReadCloser
	o *remoteObject
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.o.mu.Lock()
		c.o.read += int64(n)
		c.o.mu.Unlock()
	}
	return n, err
}

func (c *counted) Close() error { return c.r.Close() }

// fetchRemote reads a remote file: one GET, read whole into memory when
// the file is small (no temporary file ever), kept open for the
// extractors to stream otherwise.
func (s *source) fetchRemote(ctx context.Context, t *target, item models.Item, f *fetched) error {
	if t.job.ItemID != "" && !t.opts.Force && item.LastHarvested != nil {
		// A single item harvested again unless unchanged: a HEAD decides
		// before any byte is read.
		entry, err := s.st.Stat(ctx, s.container, item.Path)
		if err != nil {
			return fmt.Errorf("stat %s: %w", item.Path, err)
		}
		if entry.ETag == item.HarvestedETag {
			f.entry = entry
			return nil
		}
	}
	start := time.Now()
	// The first contentLimit bytes: the whole of a small file, the head
	// of a large one (its type, its container's header).
	body, entry, err := s.remote.ReadRange(ctx, s.container, item.Path, 0, contentLimit, "")
	if err != nil {
		return err
	}
	f.entry = entry
	head := make([]byte, min(entry.Size, contentLimit))
	_, err = io.ReadFull(body, head)
	body.Close()
	if err != nil {
		return fmt.Errorf("read %s: %w", item.Path, err) // shrunk while read: try again
	}
	if entry.Size <= contentLimit {
		f.content = head
		took := time.Since(start)
		f.download = func() *models.Activity { return downloadActivity(t, item, entry.Size, took) }
		f.local = func(ctx context.Context) error {
			return s.toTemp(f, item, func(w io.Writer) error { _, err := w.Write(head); return err })
		}
		return nil
	}
	o := &remoteObject{rr: s.remote, container: s.container, path: item.Path, entry: entry, head: head, read: int64(len(head))}
	f.cleanup = o.close
	f.stream = o.stream
	f.remote = o
	var took time.Duration
	f.download = func() *models.Activity {
		if took == 0 {
			took = time.Since(start)
		}
		return downloadActivity(t, item, o.received(), took)
	}
	f.local = func(ctx context.Context) error {
		err := s.toTemp(f, item, func(w io.Writer) error {
			rc, err := o.stream(ctx, -1)
			if err != nil {
				return err
			}
			defer rc.Close()
			_, err = io.Copy(w, rc)
			return err
		})
		o.close()
		took = time.Since(start)
		return err
	}
	return nil
}

// toTemp writes the file once to a temporary file for the extractors that
// need a path, removed by f.cleanup.
func (s *source) toTemp(f *fetched, item models.Item, write func(io.Writer) error) error {
	dir := filepath.Join(s.dataDir, "tmp")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "download-*")
	if err != nil {
		return err
	}
	prev := f.cleanup
	f.cleanup = func() { prev(); tmp.Close(); os.Remove(tmp.Name()) }
	err = write(tmp)
	if err == nil {
		err = tmp.Close()
	}
	if err != nil {
		return fmt.Errorf("download %s: %w", item.Path, err)
	}
	f.path = tmp.Name()
	return nil
}

func downloadActivity(t *target, item models.Item, n int64, took time.Duration) *models.Activity {
	a := activity(t, models.ActivityHarvestDownload, "")
	a.ItemID, a.Name, a.Bytes, a.Duration = item.ID, item.Name, n, took.Milliseconds()
	return &a
}

// ranged is the file for the range server: its bytes in memory, or the
// remote object read by windows.
func (f *fetched) ranged(ctx context.Context) *rangedFile {
	r := &rangedFile{ctx: ctx, size: f.entry.Size, modified: f.entry.LastModified, o: f.remote}
	if f.remote != nil {
		r.windows = []window{{off: 0, data: f.remote.head}}
	}
	if f.content != nil {
		r.content, r.size = bytes.NewReader(f.content), int64(len(f.content))
	}
	return r
}
