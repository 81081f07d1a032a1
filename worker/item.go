package worker

import (
	"context"
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
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
	artDir   string // the item's artifact paths start with it (artifact store keys)
	work     string // temporary directory of its artifacts until publish removes it; "" when none
	note     string // why nothing ran
	gone     bool   // the file no longer exists
	fail     string // the item could not be harvested at all
	newFile  bool   // a new file: no items row yet
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
	fileIDs := make(map[string]queue.FileEntry, len(p.Files))
	for _, f := range p.Files {
		id := models.ItemID(p.ContainerID, f.Path)
		fileIDs[id] = f
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return permanent("item task without items")
	}
	// Not metadata: it can be large (text, EXIF) and is merged by Postgres.
	// New files are looked for when the task may have run before (a retry,
	// a repair walk's batch): an earlier delivery may have made them items
	// (by container and path, as the walk does: see upsertItems). On a
	// first delivery the walk has just found no row for them; should
	// another job have made one since, recording finds it and stores the
	// file as an item harvested again (recordBatch).
	var items []models.Item
	if itemIDs := p.IDs(); len(itemIDs) > 0 {
		var err error
		if items, err = store.HarvestItems(h.DB.WithContext(ctx), itemIDs); err != nil {
			return err
		}
	}
	if retried, _ := asynq.GetRetryCount(ctx); len(p.Files) > 0 && (retried > 0 || p.Repair) {
		paths := make([]string, len(p.Files))
		for i, f := range p.Files {
			paths[i] = f.Path
		}
		made, err := store.HarvestItemsAt(h.DB.WithContext(ctx), p.ContainerID, paths)
		if err != nil {
			return err
		}
		loaded := make(map[string]bool, len(items))
		for _, it := range items {
			loaded[it.ID] = true
		}
		for _, it := range made {
			if !loaded[it.ID] {
				items = append(items, it)
			}
		}
	}
	newFile := map[string]bool{}
	for _, it := range items {
		delete(fileIDs, it.ID)
	}
	for id, f := range fileIDs {
		items = append(items, models.Item{ID: id, ContainerID: p.ContainerID, Path: f.Path, Name: path.Base(f.Path)})
		newFile[id] = true
	}
	if len(items) == 0 {
		return permanent("items %v not found", ids)
	}
	slices.SortFunc(items, func(a, b models.Item) int { return strings.Compare(a.Path, b.Path) })
	t, err := h.loadTarget(ctx, p.RequestID, items[0].ContainerID)
	if err != nil {
		return err
	}
	if t.job.Cancelled {
		return nil
	}
	todo, err := h.pending(ctx, t, items, p.Repair)
	if err != nil || len(todo) == 0 {
		return err
	}
	batch, err := h.openBatch(t)
	if err != nil {
		if !errors.Is(err, asynq.SkipRetry) {
			return err
		}
		out := make([]*harvested, len(todo))
		for i, it := range todo {
			out[i] = &harvested{item: it, fail: err.Error(), newFile: newFile[it.ID]}
		}
		return h.recordBatch(ctx, t, out)
	}
	defer batch.Close()
	out := make([]*harvested, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	// Local files wait on CPU and disk; remote ones on the network, so
	// their number in flight follows latency (REMOTE_CONCURRENCY).
	inFlight := max(2, runtime.NumCPU())
	if batch.Remote() {
		inFlight = h.Config.RemoteConcurrency
	}
	sem := make(chan struct{}, max(1, inFlight))
	// An item's artifacts are published while the next items' extractors
	// run: as many items wait for it or are published as are harvested
	// at most, which bounds the temporary files of a task.
	publishing := make(chan struct{}, max(1, inFlight))
	for i := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			hv, err := h.harvestOne(ctx, batch, t, todo[i])
			publishing <- struct{}{}
			<-sem
			if err == nil && hv != nil {
				err = h.publish(ctx, hv)
			}
			<-publishing
			if err != nil {
				hv = nil
			}
			out[i], errs[i] = hv, err
			if out[i] != nil {
				out[i].newFile = newFile[todo[i].ID]
			}
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
	return retry
}

// pending drops deleted items and, when the task may have run before (a
// retry, a delivery after a lost lease, a repair walk's batch), items this
// request already finished. A first delivery skips the lookup: recording
// is keyed anyway, so an item finished meanwhile is only harvested twice,
// never recorded twice.
func (h *Handler) pending(ctx context.Context, t *target, items []models.Item, repair bool) ([]models.Item, error) {
	skip := map[string]bool{}
	if retried, _ := asynq.GetRetryCount(ctx); retried > 0 || repair {
		ids := make([]string, len(items))
		for i, it := range items {
			ids[i] = it.ID
		}
		finished, err := store.FinishedItems(h.DB.WithContext(ctx), t.job.RequestID, ids)
		if err != nil {
			return nil, err
		}
		for _, id := range finished {
			skip[id] = true
		}
	}
	var out []models.Item
	for _, it := range items {
		if it.DeletedAt == nil && it.ContainerID == t.ctr.ID && !skip[it.ID] {
			out = append(out, it)
		}
	}
	return out, nil
}

// harvestOne runs the extractors on one item. A returned error is transient
// (the task is retried); everything else is an outcome to record.
func (h *Handler) harvestOne(ctx context.Context, batch *storage.Batch, t *target, item models.Item) (*harvested, error) {
	start := time.Now()
	hv := &harvested{item: item}
	names, err := h.extractorsFor(ctx, t, item)
	if err != nil {
		return nil, err
	}
	// A single item is harvested again unless unchanged.
	in, err := batch.Item(ctx, storage.Request{Path: item.Path, Need: h.need(names),
		SkipUnchanged: !t.opts.Force && t.job.ItemID != "" && item.LastHarvested != nil, KnownETag: item.HarvestedETag})
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrBadPath) {
		hv.gone = true
		return hv, nil
	} else if err != nil {
		return nil, err
	}
	defer in.Close()
	hv.entry = in.Entry
	if in.Unchanged {
		hv.note, hv.took = "unchanged since the last harvest", time.Since(start)
		return hv, nil
	}
	// Each extractor writes below work/<its name>, a directory of this
	// harvest of the item, published by publish (artifacts.go): the
	// extractors about to run start from nothing, and the artifacts the
	// others made before stay in the store.
	hv.artDir = item.ID[:2] + "/" + item.ID
	hv.work = h.workDir()
	input := &extractors.Input{ItemID: item.ID, Name: item.Name, Path: in.Path, Size: in.Entry.Size,
		Content: in.Content, Stream: in.Stream, ArtifactDir: hv.work, Siblings: siblings(in, item.Path)}
	hv.outcomes = extractors.Run(ctx, h.Extractors, names, input, h.Config.ExtractorTimeout)
	if n, took, ok := in.Downloaded(); ok {
		hv.download = downloadActivity(t, item, n, took)
	}
	if ctx.Err() != nil {
		removeWorkDir(hv.work)
		return nil, ctx.Err() // the task was cancelled or timed out as a whole
	}
	for _, o := range hv.outcomes {
		if o.Err != nil && extractors.IsTransient(o.Err) && retriesLeft(ctx) {
			removeWorkDir(hv.work)
			return nil, fmt.Errorf("extractor %s on %s: %w", o.Name, item.ID, o.Err)
		}
	}
	if h.wroteNothing(hv.outcomes) {
		hv.work = "" // no directory to publish or remove
	}
	hv.took = time.Since(start)
	return hv, nil
}

// wroteNothing: every extractor that ran is Inline, and Inline extractors
// write no files (extractors.Info.Inline).
func (h *Handler) wroteNothing(outcomes []extractors.Outcome) bool {
	for _, o := range outcomes {
		if !h.Extractors.Access(o.Name).Inline {
			return false
		}
	}
	return true
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
	since, err := store.ExtractorsEnabledSince(h.DB.WithContext(ctx), *item.LastHarvested)
	if err != nil {
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
	base := h.Extractors.AlwaysNames()
	out := slices.Clone(base)
	for _, n := range names {
		if !slices.Contains(base, n) && (fresh[n] || !has[n]) {
			out = append(out, n)
		}
	}
	return out, nil
}
