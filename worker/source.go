package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// contentLimit: files up to this size are read into memory once and handed
// to every extractor (Input.Content); larger ones are read by each
// extractor that needs the bytes, from the local path.
const contentLimit = 256 << 10

// source is where a batch's files come from: a local container (filesystem,
// upload store) reached once for the whole batch, or a remote location (s3)
// whose files are read over the network (see fetchRemote).
type source struct {
	st        storage.Location
	files     *storage.Files      // local kinds; nil for remote ones
	remote    storage.RangeReader // s3; nil for local kinds
	container string
	gone      bool // the local container no longer exists
	dataDir   string
}

func (h *Handler) openSource(t *target) (*source, error) {
	st, err := h.openStorage(t.loc)
	if err != nil {
		return nil, err
	}
	src := &source{st: st, container: t.ctr.Name, dataDir: h.Config.DataDir}
	if rr, ok := st.(storage.RangeReader); ok {
		src.remote = rr
	}
	if fo, ok := st.(storage.FilesOpener); ok {
		src.files, err = fo.Files(t.ctr.Name)
		switch {
		case errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrBadPath):
			src.gone = true // every item of the batch is gone with it
		case err != nil:
			return nil, fmt.Errorf("open container %s: %w", t.ctr.Name, err)
		}
	}
	return src, nil
}

func (s *source) close() {
	if s.files != nil {
		s.files.Close()
	}
}

// fetched is one item's file as the extractors get it.
type fetched struct {
	entry   storage.Entry
	path    string // local path, set by local for remote files
	content []byte // the whole file when small
	// stream is Input.Stream: a large remote file read as it comes in.
	stream func(ctx context.Context, limit int64) (io.ReadCloser, error)
	// remote is a large remote file (nil for small ones, in content).
	remote *remoteObject
	// download is the harvestdownload activity of a remote file, once the
	// extractors are done with it (nil for local files).
	download func() *models.Activity
	cleanup  func()
	// local makes path available: called only when an extractor that is
	// not Inline runs (a remote file is then written to disk once).
	local func(ctx context.Context) error
	// siblings is Input.Siblings: set for local containers, nil for remote
	// ones (listing a bucket per media file is not worth it).
	siblings func(ctx context.Context, exts []string) ([]extractors.Sibling, error)
}

// fetch describes the item's file and, for a small local one, reads it.
// Errors wrapping storage.ErrNotFound or ErrBadPath mean the file is gone;
// others are transient.
func (s *source) fetch(ctx context.Context, t *target, item models.Item) (*fetched, error) {
	f := &fetched{cleanup: func() {}, local: func(context.Context) error { return nil }}
	if s.gone {
		return nil, fmt.Errorf("container %s: %w", s.container, storage.ErrNotFound)
	}
	if s.remote != nil {
		if err := s.fetchRemote(ctx, t, item, f); err != nil {
			f.cleanup()
			return nil, err
		}
		return f, nil
	}
	if s.files == nil {
		entry, err := s.st.Stat(ctx, s.container, item.Path)
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", item.Path, err)
		}
		f.entry = entry
		f.local = func(ctx context.Context) error { return s.downloadTo(ctx, f, t, item) }
		return f, nil
	}
	file, entry, err := s.files.Open(item.Path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	f.entry = entry
	f.path, _ = s.st.LocalPath(s.container, item.Path)
	f.siblings = func(ctx context.Context, exts []string) ([]extractors.Sibling, error) {
		return s.siblings(ctx, item.Path, exts)
	}
	if entry.Size <= contentLimit {
		f.content = make([]byte, entry.Size)
		if _, err := io.ReadFull(file, f.content); err != nil {
			return nil, fmt.Errorf("read %s: %w", item.Path, err) // shrunk while read: try again
		}
	}
	return f, nil
}

// siblings lists the files next to itemPath named like it (see
// extractors.Sibling) through the location's own listing, which never
// follows symlinks: the listing is sorted by path, so they are the entries
// right after "dir/base.". Each is opened like the item itself.
func (s *source) siblings(ctx context.Context, itemPath string, exts []string) ([]extractors.Sibling, error) {
	name := path.Base(itemPath)
	prefix := extractors.SiblingPrefix(name)
	if prefix == "" || len(exts) == 0 {
		return nil, nil
	}
	if dir := path.Dir(itemPath); dir != "." {
		prefix = dir + "/" + prefix
	}
	var out []extractors.Sibling
	cursor, scanned := prefix, 0
	for scanned < extractors.MaxSiblingScan {
		page, next, err := s.st.ListItems(ctx, s.container, cursor, 64)
		if err != nil {
			return nil, fmt.Errorf("list siblings of %s: %w", itemPath, err)
		}
		for _, e := range page {
			if !strings.HasPrefix(e.Path, prefix) || scanned >= extractors.MaxSiblingScan {
				return out, nil
			}
			scanned++
			if !extractors.IsSibling(name, path.Base(e.Path), exts) || strings.Contains(e.Path[len(prefix):], "/") {
				continue
			}
			p := e.Path
			out = append(out, extractors.Sibling{Name: path.Base(p), Size: e.Size, Open: func() (io.ReadCloser, error) {
				f, _, err := s.files.Open(p)
				return f, err
			}})
			if len(out) == extractors.MaxSiblings {
				return out, nil
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	return out, nil
}

// downloadTo copies a remote file of a location that cannot read
// ranges to a temporary file, recorded as harvestdownload activity.
func (s *source) downloadTo(ctx context.Context, f *fetched, t *target, item models.Item) error {
	start := time.Now()
	var n int64
	err := s.toTemp(f, item, func(w io.Writer) error {
		rc, err := s.st.Open(ctx, s.container, item.Path)
		if err != nil {
			return fmt.Errorf("open %s: %w", item.Path, err)
		}
		defer rc.Close()
		n, err = io.Copy(w, rc)
		return err
	})
	if err != nil {
		return err
	}
	took := time.Since(start)
	f.download = func() *models.Activity { return downloadActivity(t, item, n, took) }
	return nil
}
