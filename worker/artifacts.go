package worker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
)

// Artifacts reach the artifact store in three steps, so that extractors
// only ever write local files and the store sees finished ones:
//
//  1. the extractors of an item write below a temporary directory of its
//     own on the worker's disk (workDir, under DATA_DIR/tmp);
//  2. once they are done, the files their results list are published to
//     the store under their artifact paths (publish): a rename into
//     DATA_DIR/artifacts, or a PUT to the bucket. A re-harvest writes the
//     same keys, each replaced atomically;
//  3. the batch's transaction records their rows, and only then are the
//     files of the rows it replaced and did not write again removed
//     (dropArtifacts).
//
// A crash between 2 and 3 leaves files without rows (re-delivery writes
// the same keys again; the sweep removes the others), never rows without
// files. A store that fails to publish fails the item with a transient
// error: its task is retried, the other items of the batch are recorded.

// workDir is a fresh temporary directory path for one item's artifacts
// (made by the extractors that write, most items have none).
func (h *Handler) workDir() string {
	return filepath.Join(h.Config.DataDir, "tmp", "artifacts-"+ids.New())
}

// removeWorkDir removes an item's temporary directory. Most items never
// make one, and a single rmdir tells (os.RemoveAll tries an unlink, an
// rmdir and an lstat: a few per cent of a worker's CPU on small files).
func removeWorkDir(dir string) {
	if err := syscall.Rmdir(dir); err == nil || errors.Is(err, fs.ErrNotExist) {
		return
	}
	os.RemoveAll(dir)
}

// publishConcurrency bounds the files of one item published at once (a
// video's frames to a bucket).
const publishConcurrency = 8

// publish puts the artifacts the item's extractors listed into the
// store, then removes its temporary directory.
func (h *Handler) publish(ctx context.Context, hv *harvested) error {
	if hv.work == "" {
		return nil
	}
	defer removeWorkDir(hv.work)
	type file struct{ key, path string }
	var files []file
	seen := map[string]bool{}
	for _, o := range hv.outcomes {
		if o.Err != nil {
			continue
		}
		for _, a := range o.Artifacts {
			key := hv.artDir + "/" + o.Name + "/" + a.Path
			if seen[key] {
				continue
			}
			seen[key] = true
			p := filepath.Join(hv.work, o.Name, filepath.FromSlash(a.Path))
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
				// The extractor listed a file it did not write: its row
				// will answer 404, as it did before artifacts had a store.
				h.Logger.Warn("artifact listed but not written", slog.String("item_id", hv.item.ID),
					slog.String("extractor", o.Name), slog.String("path", a.Path))
				continue
			}
			files = append(files, file{key, p})
		}
	}
	if len(files) == 0 {
		return nil
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, publishConcurrency)
	)
	for _, f := range files {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := h.Files.Artifacts.PutFile(ctx, f.key, f.path); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("publish artifacts of %s: %w", hv.item.ID, err)
	}
	return nil
}

// dropArtifacts removes the files of artifact rows a committed batch
// replaced and did not write again. A failure is logged, not returned: the
// rows are gone, so the files are never served, and the sweep removes
// them later.
func (h *Handler) dropArtifacts(ctx context.Context, replaced []string, written map[string]bool) {
	var stale []string
	for _, p := range replaced {
		if !written[p] {
			stale = append(stale, p)
		}
	}
	if len(stale) == 0 {
		return
	}
	if err := h.Files.Artifacts.Remove(ctx, stale); err != nil {
		h.Logger.Warn("remove replaced artifacts; the sweep will", slog.Int("files", len(stale)), slog.String("error", err.Error()))
	}
}

// Sweep bounds: a stretch lists at most sweepPages pages before handing
// the rest to a task of its own, and a file without a row is an orphan
// only once it is older than sweepGrace (an item task publishes its files
// before it records them, and runs for at most an hour).
const (
	sweepPages = 20
	sweepGrace = 6 * time.Hour
)

// SweepArtifacts handles one stretch of a sweep of the artifact store: it
// removes the files no artifact row names, page by page, and enqueues the
// next stretch with its cursor. A stretch that fails is retried from its
// own cursor; one delivered twice enqueues its successor once.
func (h *Handler) SweepArtifacts(ctx context.Context, task *asynq.Task) error {
	var p queue.ArtifactSweepPayload
	if err := queue.Decode(task, &p); err != nil {
		return err
	}
	after, removed, err := SweepArtifacts(ctx, h.DB, h.Files.Artifacts, p.After, sweepPages, h.Now().Add(-sweepGrace))
	if removed > 0 {
		h.Logger.Info("artifact sweep removed orphans", slog.Int("files", removed), slog.String("after", p.After))
	}
	if err != nil {
		return fmt.Errorf("sweep artifacts after %q: %w", p.After, err)
	}
	if after == "" {
		return nil
	}
	return jobs.EnqueueSweep(ctx, h.Queue, h.names, queue.ArtifactSweepPayload{Run: p.Run, After: after})
}

// SweepArtifacts sweeps up to pages pages of artifacts after after (see
// blobstore.Sweep), files older than olderThan only; it returns the cursor
// to go on from ("" at the end) and how many files it removed.
func SweepArtifacts(ctx context.Context, db *store.DB, s blobstore.Store, after string, pages int, olderThan time.Time) (string, int, error) {
	known := func(ctx context.Context, keys []string) (map[string]bool, error) {
		out, err := store.KnownArtifacts(db.WithContext(ctx), keys)
		if err != nil {
			return nil, err
		}
		// Reference pictures of people (and their face crops) are kept too.
		refs, err := store.KnownReferenceFiles(db.WithContext(ctx), keys)
		for k := range refs {
			out[k] = true
		}
		return out, err
	}
	total := 0
	for range pages {
		next, removed, err := blobstore.Sweep(ctx, s, after, blobstore.PageSize, olderThan, known)
		total += removed
		if err != nil || next == "" {
			return next, total, err
		}
		after = next
	}
	return after, total, nil
}

// cleanWork removes the temporary artifact directories a killed worker
// left (older than a day: workers sharing DATA_DIR on one host may be
// using the younger ones).
func cleanWork(dataDir string, now time.Time) {
	dir := filepath.Join(dataDir, "tmp")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "artifacts-") {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > 24*time.Hour {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
