package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// How an item's bytes reach the extractors is decided here, once per
// item, from what its extractors need (Need) and what the location is:
//   - a local file (filesystem, upload store) is opened once; a small one
//     (ContentLimit) is read into memory for every extractor, and tools get
//     its path;
//   - a remote file (s3) is read by one GET: whole into memory when small,
//     otherwise its head, the rest streaming in as an extractor reads it
//     (Input.Stream); it reaches the disk only when an extractor needs a
//     path (a temporary file), and extractors that read ranges get them
//     from a loopback URL (the range server of Inputs);
//   - a location that has neither local files nor ranged reads is copied
//     to a temporary file.

// ContentLimit: files up to this size are read into memory once and handed
// to every extractor (Input.Content); of a larger remote file, the first
// ContentLimit bytes are read ahead (its type, its container's header).
const ContentLimit = 256 << 10

// Need is what the extractors of an item's harvest need of its bytes.
type Need int

const (
	// NeedContent: every extractor reads the bytes in the process
	// (Content, or Stream for a large remote file).
	NeedContent Need = iota
	// NeedRanges: some extractor reads byte ranges of a path, none needs
	// more: a remote file is served by ranges on loopback (a URL as Path).
	NeedRanges
	// NeedPath: some extractor needs a local path (a remote file is
	// copied to a temporary file).
	NeedPath
)

// Inputs hands out the bytes of items for harvests: one per worker. Close
// releases what it holds (the range server).
type Inputs struct {
	tempDir string
	ranges  rangeServer
}

// NewInputs returns an Inputs whose temporary files go to tempDir (created
// when first needed).
func NewInputs(tempDir string) *Inputs {
	return &Inputs{tempDir: tempDir}
}

// Close stops the range server (its URLs stop answering). Inputs of items
// open at the time should be closed first; needing ranges after Close
// fails.
func (s *Inputs) Close() error {
	return s.ranges.close()
}

// Batch is one container opened for reading many of its items (an item
// task): a local container is reached once for the whole batch.
type Batch struct {
	inputs    *Inputs
	loc       Location
	container string
	files     *Files      // local kinds; nil for remote ones
	remote    RangeReader // s3; nil for local kinds
	gone      bool        // the local container no longer exists
}

// Open opens container of loc for reading items. A local container that no
// longer exists is not an error here: every Item of the batch then says
// ErrNotFound.
func (s *Inputs) Open(loc Location, container string) (*Batch, error) {
	b := &Batch{inputs: s, loc: loc, container: container}
	if rr, ok := loc.(RangeReader); ok {
		b.remote = rr
	}
	if fo, ok := loc.(FilesOpener); ok {
		var err error
		b.files, err = fo.Files(container)
		switch {
		case errors.Is(err, ErrNotFound) || errors.Is(err, ErrBadPath):
			b.gone = true // every item of the batch is gone with it
		case err != nil:
			return nil, fmt.Errorf("open container %s: %w", container, err)
		}
	}
	return b, nil
}

// Remote reports whether the batch's files are read over the network, so
// that the caller sizes its concurrency by latency rather than CPUs.
func (b *Batch) Remote() bool { return b.remote != nil }

// Close releases the container.
func (b *Batch) Close() {
	if b.files != nil {
		b.files.Close()
	}
}

// Request asks for one item's input.
type Request struct {
	// Path is the item's path in the container.
	Path string
	// Need is what its extractors need.
	Need Need
	// SkipUnchanged: when the file still has KnownETag, Item reads nothing
	// and returns an Input with Unchanged set (a remote file: one HEAD).
	SkipUnchanged bool
	KnownETag     string
}

// Input is one item's bytes as its extractors get them. Close releases it.
type Input struct {
	Entry Entry
	// Unchanged: the file has Request.KnownETag; nothing else is set.
	Unchanged bool
	// Path is a local path of the file, a temporary copy, a loopback URL
	// serving ranges (NeedRanges), or "" (a remote file with NeedContent).
	Path string
	// Content is the whole file when small; nil otherwise.
	Content []byte
	// Stream reads a large remote file from its start (see
	// extractors.Input.Stream); nil otherwise.
	Stream func(ctx context.Context, limit int64) (io.ReadCloser, error)
	// Neighbours lists the files of the container whose paths start with
	// prefix, in path order, at most scan of them, each of which can be
	// opened as the item was; nil when the location cannot list them
	// cheaply (remote ones: listing a bucket per media file is not worth
	// it).
	Neighbours func(ctx context.Context, prefix string, scan int) ([]Neighbour, error)

	// downloaded: the bytes read over the network (or copied from a
	// location without local files) and how long that took; nil for a
	// local file.
	downloaded func() (int64, time.Duration)
	closers    []func()
}

// Neighbour is a file listed by Input.Neighbours.
type Neighbour struct {
	Path string
	Size int64
	Open func() (io.ReadCloser, error)
}

// Downloaded reports how many bytes of the file were read over the
// network (or copied to a temporary file) and how long that took; ok is
// false for a local file. Call it once the extractors are done with it.
func (in *Input) Downloaded() (n int64, took time.Duration, ok bool) {
	if in.downloaded == nil {
		return 0, 0, false
	}
	n, took = in.downloaded()
	return n, took, true
}

// Close releases what the input holds (a GET under way, a temporary file,
// its URL on the range server).
func (in *Input) Close() {
	for i := len(in.closers) - 1; i >= 0; i-- {
		in.closers[i]()
	}
	in.closers = nil
}

func (in *Input) onClose(f func()) { in.closers = append(in.closers, f) }

// Item describes the item's file and gives it as req.Need asks. Errors
// wrapping ErrNotFound or ErrBadPath mean the file is gone; others are
// transient. The caller closes the Input.
func (b *Batch) Item(ctx context.Context, req Request) (*Input, error) {
	in := &Input{}
	if b.gone {
		return nil, fmt.Errorf("container %s: %w", b.container, ErrNotFound)
	}
	var err error
	switch {
	case b.remote != nil:
		err = b.remoteInput(ctx, req, in)
	case b.files == nil:
		err = b.copiedInput(ctx, req, in)
	default:
		err = b.localInput(req, in)
	}
	if err != nil {
		in.Close()
		return nil, err
	}
	return in, nil
}

// localInput opens a local file and, when small, reads it.
func (b *Batch) localInput(req Request, in *Input) error {
	unchanged := func(e Entry) bool { return req.SkipUnchanged && e.ETag == req.KnownETag }
	content, entry, err := b.files.Read(req.Path, ContentLimit, func(e Entry) bool { return !unchanged(e) })
	if err != nil {
		return err // a file that shrank while read is tried again
	}
	in.Entry = entry
	if unchanged(entry) {
		in.Unchanged = true
		return nil
	}
	in.Path, _ = b.loc.LocalPath(b.container, req.Path)
	in.Neighbours = b.neighbours
	in.Content = content
	return nil
}

// neighbours lists through the location's own listing, which never follows
// symlinks: the listing is sorted by path, so the files starting with
// prefix are the entries right after it.
func (b *Batch) neighbours(ctx context.Context, prefix string, scan int) ([]Neighbour, error) {
	var out []Neighbour
	cursor := prefix
	for len(out) < scan {
		page, next, err := b.loc.ListItems(ctx, b.container, cursor, 64)
		if err != nil {
			return nil, fmt.Errorf("list files starting with %q: %w", prefix, err)
		}
		for _, e := range page {
			if !strings.HasPrefix(e.Path, prefix) || len(out) >= scan {
				return out, nil
			}
			p := e.Path
			out = append(out, Neighbour{Path: p, Size: e.Size, Open: func() (io.ReadCloser, error) {
				f, _, err := b.files.Open(p)
				return f, err
			}})
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return out, nil
}

// copiedInput copies a file of a location that has neither local files
// nor ranged reads to a temporary file, whatever the extractors need.
func (b *Batch) copiedInput(ctx context.Context, req Request, in *Input) error {
	entry, err := b.loc.Stat(ctx, b.container, req.Path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", req.Path, err)
	}
	in.Entry = entry
	if req.SkipUnchanged && entry.ETag == req.KnownETag {
		in.Unchanged = true
		return nil
	}
	start := time.Now()
	var n int64
	err = b.toTemp(in, req.Path, func(w io.Writer) error {
		rc, err := b.loc.Open(ctx, b.container, req.Path)
		if err != nil {
			return fmt.Errorf("open %s: %w", req.Path, err)
		}
		defer rc.Close()
		n, err = io.Copy(w, rc)
		return err
	})
	if err != nil {
		return err
	}
	took := time.Since(start)
	in.downloaded = func() (int64, time.Duration) { return n, took }
	return nil
}

// toTemp writes the file once to a temporary file for the extractors that
// need a path, removed when the input is closed.
func (b *Batch) toTemp(in *Input, p string, write func(io.Writer) error) error {
	if err := os.MkdirAll(b.inputs.tempDir, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(b.inputs.tempDir, "download-*")
	if err != nil {
		return err
	}
	in.onClose(func() { tmp.Close(); os.Remove(tmp.Name()) })
	err = write(tmp)
	if err == nil {
		err = tmp.Close()
	}
	if err != nil {
		return fmt.Errorf("download %s: %w", p, err)
	}
	in.Path = tmp.Name()
	return nil
}

// serveRanges makes f available to the extractors at a loopback URL for as
// long as the input is open.
func (b *Batch) serveRanges(in *Input, f *rangedFile) error {
	url, release, err := b.inputs.ranges.serve(f)
	if err != nil {
		return err
	}
	in.onClose(release)
	in.Path = url
	return nil
}
