package worker

import (
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

// headMax is how much of a large remote object is kept as it is first
// read, so that a look at its first bytes (mime_type reads a few KiB)
// and then a read from its start (hashes) share one GET.
const headMax = 1 << 20

// remoteObject is one object of a remote location (s3) being harvested:
// the GET that fetch started, read by the extractors as it comes in
// (Input.Stream) or copied once to a temporary file when an extractor
// needs a path. Further reads, if any, are new GETs pinned to its ETag.
type remoteObject struct {
	rr        storage.RangeReader
	container string
	path      string
	entry     storage.Entry

	mu   sync.Mutex
	body io.ReadCloser // the first GET; nil once closed
	head []byte        // the object's first bytes, read from body
	pos  int64         // bytes of body consumed: len(head) while it can be read again from 0
	read int64         // bytes received, from every GET
}

// stream implements extractors.Input.Stream.
func (o *remoteObject) stream(ctx context.Context, limit int64) (io.ReadCloser, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.body != nil && o.pos == int64(len(o.head)) {
		return &replay{o: o}, nil
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

// close ends the first GET (its connection is dropped when the body was
// not read to its end).
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

// errReplayLost: a second reader of the first GET moved it on (extractors
// run one after the other, so only an abandoned one could).
var errReplayLost = errors.New("remote object read by two readers at once")

// replay reads the object from its start: the kept head, then the first
// GET's body, keeping what it reads while the head has room.
type replay struct {
	o   *remoteObject
	off int64
}

func (r *replay) Read(p []byte) (int, error) {
	o := r.o
	o.mu.Lock()
	defer o.mu.Unlock()
	if r.off < int64(len(o.head)) {
		n := copy(p, o.head[r.off:])
		r.off += int64(n)
		return n, nil
	}
	if o.body == nil || r.off != o.pos {
		return 0, errReplayLost
	}
	n, err := o.body.Read(p)
	if n > 0 {
		if o.pos == int64(len(o.head)) && len(o.head)+n <= headMax {
			o.head = append(o.head, p[:n]...)
		}
		o.pos += int64(n)
		o.read += int64(n)
		r.off += int64(n)
	}
	return n, err
}

// Close leaves the first GET open: the next reader continues it.
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
	body, entry, err := s.remote.ReadRange(ctx, s.container, item.Path, 0, -1, "")
	if err != nil {
		return err
	}
	f.entry = entry
	o := &remoteObject{rr: s.remote, container: s.container, path: item.Path, entry: entry, body: body}
	if entry.Size <= contentLimit {
		content := make([]byte, entry.Size)
		_, err := io.ReadFull(body, content)
		body.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", item.Path, err) // shrunk while read: try again
		}
		f.content = content
		f.download = func() *models.Activity { return downloadActivity(t, item, entry.Size, time.Since(start)) }
		f.local = func(ctx context.Context) error {
			return s.toTemp(f, item, func(w io.Writer) error { _, err := w.Write(content); return err })
		}
		return nil
	}
	f.cleanup = o.close
	f.stream = o.stream
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
