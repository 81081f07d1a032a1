package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// remoteObject is one large object of a remote location (s3) being
// harvested. Item read its first ContentLimit bytes (head); the rest is
// read only when an extractor reads past them: hashes as it streams in
// (Input.Stream), or once into a temporary file when an extractor needs a
// path; extractors that read ranges are served by windows (rangedFile).
// Every GET after the first is pinned to the object's ETag.
type remoteObject struct {
	rr        RangeReader
	container string
	path      string
	entry     Entry
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
		return nil, fmt.Errorf("read %s: %w", o.path, ErrChanged)
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
			return 0, fmt.Errorf("read %s: %w", o.path, ErrChanged)
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

// remoteInput reads a remote file: one GET, read whole into memory when
// the file is small (no temporary file ever), kept open for the
// extractors to stream otherwise. A file's bytes reach the disk only when
// an extractor needs a path (NeedPath); those that read ranges get them
// from a loopback URL (NeedRanges).
func (b *Batch) remoteInput(ctx context.Context, req Request, in *Input) error {
	if req.SkipUnchanged {
		// A HEAD decides before any byte is read.
		entry, err := b.loc.Stat(ctx, b.container, req.Path)
		if err != nil {
			return fmt.Errorf("stat %s: %w", req.Path, err)
		}
		if entry.ETag == req.KnownETag {
			in.Entry, in.Unchanged = entry, true
			return nil
		}
	}
	start := time.Now()
	// The first ContentLimit bytes: the whole of a small file, the head
	// of a large one (its type, its container's header).
	body, entry, err := b.remote.ReadRange(ctx, b.container, req.Path, 0, ContentLimit, "")
	if err != nil {
		return err
	}
	in.Entry = entry
	head := make([]byte, min(entry.Size, ContentLimit))
	_, err = io.ReadFull(body, head)
	body.Close()
	if err != nil {
		return fmt.Errorf("read %s: %w", req.Path, err) // shrunk while read: try again
	}
	if entry.Size <= ContentLimit {
		in.Content = head
		took := time.Since(start)
		in.downloaded = func() (int64, time.Duration) { return entry.Size, took }
		switch req.Need {
		case NeedRanges:
			return b.serveRanges(in, &rangedFile{ctx: ctx, size: int64(len(head)), modified: entry.LastModified, content: bytes.NewReader(head)})
		case NeedPath:
			return b.toTemp(in, req.Path, func(w io.Writer) error { _, err := w.Write(head); return err })
		}
		return nil
	}
	o := &remoteObject{rr: b.remote, container: b.container, path: req.Path, entry: entry, head: head, read: int64(len(head))}
	in.onClose(o.close)
	in.Stream = o.stream
	var took time.Duration
	in.downloaded = func() (int64, time.Duration) {
		if took == 0 {
			took = time.Since(start)
		}
		return o.received(), took
	}
	switch req.Need {
	case NeedRanges:
		return b.serveRanges(in, &rangedFile{ctx: ctx, size: entry.Size, modified: entry.LastModified, o: o,
			windows: []window{{off: 0, data: head}}})
	case NeedPath:
		err := b.toTemp(in, req.Path, func(w io.Writer) error {
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
