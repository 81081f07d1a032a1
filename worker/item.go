package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// harvested is what happened to one item of a batch.
type harvested struct {
	item     models.Item
	entry    storage.Entry
	outcomes []extractors.Outcome // nil when nothing ran
	download *models.Activity
	took     time.Duration
	artDir   string // artifact directory, relative to DATA_DIR/artifacts
	note     string // why nothing ran
	gone     bool   // the file no longer exists
	fail     string // the item could not be harvested at all
}

// Item harvests one item or a batch of items of one container: runs the
// job's extractors on each file concurrently, then stores every result,
// item state, activity row and counter of the batch in one transaction. A
// harvestend row keyed by (request, item) makes a second delivery of an
// item a no-op, so a batch re-run after a crash only redoes unfinished items.
func (h *Handler) Item(ctx context.Context, task *asynq.Task) error {
	var p queue.ItemPayload
	if err := queue.Decode(task, &p); err != nil {
		return err
	}
	ids := p.IDs()
	if len(ids) == 0 {
		return permanent("item task without items")
	}
	var items []models.Item
	if err := h.DB.WithContext(ctx).Where("id IN ?", ids).Order("path").Find(&items).Error; err != nil {
		return fmt.Errorf("load items: %w", err)
	}
	if len(items) == 0 {
		return permanent("items %v not found", ids)
	}
	t, err := h.loadTarget(ctx, p.RequestID, items[0].ContainerID)
	if err != nil {
		return err
	}
	if t.job.Cancelled {
		return nil
	}
	todo, err := h.pending(ctx, t, items)
	if err != nil || len(todo) == 0 {
		return err
	}
	st, err := h.openStorage(t.loc)
	if err != nil {
		if !errors.Is(err, asynq.SkipRetry) {
			return err
		}
		out := make([]*harvested, len(todo))
		for i, it := range todo {
			out[i] = &harvested{item: it, fail: err.Error()}
		}
		return h.recordBatch(ctx, t, out)
	}
	out := make([]*harvested, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(2, runtime.NumCPU()))
	for i := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = h.harvestOne(ctx, st, t, todo[i])
		}()
	}
	wg.Wait()
	var done []*harvested
	var retry error
	for i, hv := range out {
		if errs[i] != nil {
			retry = errors.Join(retry, errs[i])
		} else if hv != nil {
			done = append(done, hv)
		}
	}
	// Record what finished even when some items must be retried: the retry
	// then only redoes those.
	if err := h.recordBatch(ctx, t, done); err != nil {
		return err
	}
	h.kickIndex(ctx)
	return retry
}

// pending drops deleted items and items this request already finished.
func (h *Handler) pending(ctx context.Context, t *target, items []models.Item) ([]models.Item, error) {
	keys := make([]string, 0, len(items))
	for _, it := range items {
		keys = append(keys, dedupeKey(models.ActivityHarvestEnd, t.job.RequestID, it.ID))
	}
	var finished []string
	if err := h.DB.WithContext(ctx).Model(&models.Activity{}).Where("dedupe_key IN ? AND dedupe_key <> ''", keys).
		Pluck("dedupe_key", &finished).Error; err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, k := range finished {
		skip[k] = true
	}
	var out []models.Item
	for i, it := range items {
		if it.DeletedAt == nil && it.ContainerID == t.ctr.ID && !skip[keys[i]] {
			out = append(out, it)
		}
	}
	return out, nil
}

// harvestOne runs the extractors on one item. A returned error is transient
// (the task is retried); everything else is an outcome to record.
func (h *Handler) harvestOne(ctx context.Context, st storage.Location, t *target, item models.Item) (*harvested, error) {
	start := time.Now()
	hv := &harvested{item: item}
	entry, err := st.Stat(ctx, t.ctr.Name, item.Path)
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrBadPath) {
		hv.gone = true
		return hv, nil
	} else if err != nil {
		return nil, fmt.Errorf("stat %s: %w", item.Path, err)
	}
	hv.entry = entry
	if !t.opts.Force && t.job.ItemID != "" && item.LastHarvested != nil && entry.ETag == item.HarvestedETag {
		hv.note, hv.took = "unchanged since the last harvest", time.Since(start)
		return hv, nil
	}
	names, err := h.extractorsFor(ctx, t, item)
	if err != nil {
		return nil, err
	}
	local, cleanup, download, err := h.localCopy(ctx, st, t, item)
	if errors.Is(err, asynq.SkipRetry) {
		hv.gone = true
		return hv, nil
	} else if err != nil {
		return nil, err
	}
	defer cleanup()
	hv.download = download
	hv.artDir = filepath.ToSlash(filepath.Join(item.ID[:2], item.ID))
	artifactDir := filepath.Join(h.Config.DataDir, "artifacts", hv.artDir)
	// A re-delivered task starts from a clean artifact directory; extractors
	// that write artifacts create it.
	if err := os.RemoveAll(artifactDir); err != nil {
		return nil, fmt.Errorf("clean artifacts: %w", err)
	}
	in := &extractors.Input{ItemID: item.ID, Name: item.Name, Path: local, Size: entry.Size, ArtifactDir: artifactDir}
	hv.outcomes = extractors.Run(ctx, h.Extractors, names, in, h.Config.ExtractorTimeout)
	if ctx.Err() != nil {
		return nil, ctx.Err() // the task was cancelled or timed out as a whole
	}
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, hasMax := asynq.GetMaxRetry(ctx)
	for _, o := range hv.outcomes {
		if o.Err != nil && extractors.IsTransient(o.Err) && hasMax && retried < maxRetry {
			return nil, fmt.Errorf("extractor %s on %s: %w", o.Name, item.ID, o.Err)
		}
	}
	hv.took = time.Since(start)
	return hv, nil
}

// extractorsFor applies new_extractors_only: only extractors enabled since
// the item's last harvest, or never run on it, besides the base ones.
func (h *Handler) extractorsFor(ctx context.Context, t *target, item models.Item) ([]string, error) {
	names := []string(t.job.Extractors)
	if !t.opts.NewExtractorsOnly || item.LastHarvested == nil {
		return names, nil
	}
	var ran []string
	for name, run := range item.Runs() {
		if run.Error == "" {
			ran = append(ran, name)
		}
	}
	var since []string
	if err := h.DB.WithContext(ctx).Model(&models.ExtractorSetting{}).
		Where("enabled AND enabled_at > ?", *item.LastHarvested).Pluck("name", &since).Error; err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, n := range ran {
		has[n] = true
	}
	fresh := map[string]bool{}
	for _, n := range since {
		fresh[n] = true
	}
	out := []string{"store", "mime_type"}
	for _, n := range names {
		if n != "store" && n != "mime_type" && (fresh[n] || !has[n]) {
			out = append(out, n)
		}
	}
	return out, nil
}

// localCopy gives the extractors a local path: the storage's own, or a
// temporary download (recorded as harvestdownload activity).
func (h *Handler) localCopy(ctx context.Context, st storage.Location, t *target, item models.Item) (string, func(), *models.Activity, error) {
	if p, ok := st.LocalPath(t.ctr.Name, item.Path); ok {
		return p, func() {}, nil, nil
	}
	start := time.Now()
	dir := filepath.Join(h.Config.DataDir, "tmp")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", nil, nil, err
	}
	f, err := os.CreateTemp(dir, "download-*")
	if err != nil {
		return "", nil, nil, err
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	rc, err := st.Open(ctx, t.ctr.Name, item.Path)
	if err != nil {
		cleanup()
		if errors.Is(err, storage.ErrNotFound) {
			return "", nil, nil, permanent("open %s: %v", item.Path, err)
		}
		return "", nil, nil, fmt.Errorf("open %s: %w", item.Path, err)
	}
	n, err := io.Copy(f, rc)
	rc.Close()
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		cleanup()
		return "", nil, nil, fmt.Errorf("download %s: %w", item.Path, err)
	}
	a := activity(t, models.ActivityHarvestDownload, "")
	a.ItemID, a.Name, a.Bytes, a.Duration = item.ID, item.Name, n, time.Since(start).Milliseconds()
	return f.Name(), cleanup, &a, nil
}
