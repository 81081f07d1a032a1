package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/storage"
)

// WalkPageSize is how many entries one walk task lists.
const WalkPageSize = 1000

// ItemBatchBytes is the most bytes one item task harvests, besides its
// first file; Config.HarvestBatchFiles the most files. A batch is one task
// and one transaction, so that folders of small files pay the per-task and
// per-statement costs once per few hundred files, while big media files go
// one or a few per task (a crashed task redoes little).
const ItemBatchBytes = 64 << 20

// minSpreadFiles is the fewest files of a batch made smaller to spread a
// walk's last page over the workers (itemBatches): a batch costs a task
// and a transaction besides its files, a few milliseconds.
const minSpreadFiles = 50

// Walk lists one page of a container, records the files it finds, enqueues
// item tasks for new or changed ones (all of them with force) and the next
// page, or completes the walk. Re-delivery is harmless: rows are upserts,
// the page's activity row is keyed, task ids are deterministic.
func (h *Handler) Walk(ctx context.Context, task *asynq.Task) error {
	var p queue.WalkPayload
	if err := queue.Decode(task, &p); err != nil {
		return err
	}
	t, err := h.loadTarget(ctx, p.RequestID, p.ContainerID)
	if err != nil {
		return err
	}
	if t.job.Cancelled {
		return nil
	}
	// The starter skips most such walks already (jobs.StartJob); this
	// catches a walk that finished after the job was started.
	if p.Page == 0 && p.Cursor == "" && p.Repair == "" && !t.opts.IgnoreRecentlyWalked &&
		jobs.RecentlyWalked(t.ctr, t.job.RequestID, t.job.Created) {
		return h.finishWalk(ctx, t, "skipped: "+jobs.SkipRecentlyWalked)
	}
	st, err := h.openStorage(t.loc)
	if err != nil {
		return h.walkFailed(ctx, t, p, err)
	}
	start := time.Now()
	entries, next, err := st.ListItems(ctx, t.ctr.Name, p.Cursor, h.pageSize)
	if err != nil {
		if errors.Is(err, storage.ErrContainerMissing) && retriedFewerThan(ctx, bucketMissingTries) {
			// A bucket missing for a moment (re-created, its server
			// restarting) is there again a few seconds later.
			return h.walkFailed(ctx, t, p, fmt.Errorf("list %s: %w", t.ctr.Name, err))
		}
		if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrContainerMissing) {
			return h.walkFailed(ctx, t, p, permanent("container %s not found in storage", t.ctr.Name))
		}
		return h.walkFailed(ctx, t, p, fmt.Errorf("list %s: %w", t.ctr.Name, err))
	}
	var toHarvest []harvestable
	err = h.DB.WithContext(ctx).Transaction(func(tx *store.DB) error {
		var err error
		toHarvest, err = upsertItems(tx, t, entries, t.opts.Force || t.opts.NewExtractorsOnly)
		if err != nil {
			return err
		}
		a := activity(t, models.ActivityWalk, t.ctr.ID+":"+p.Cursor)
		a.Name, a.Source, a.Count = t.ctr.Name, p.Cursor, int64(len(entries))
		a.Duration = time.Since(start).Milliseconds()
		fresh, err := insertActivity(tx, a)
		if err != nil || !fresh {
			return err
		}
		return store.CountWalkPage(tx, t.job.RequestID, len(entries), len(toHarvest), h.Now().UTC())
	})
	if err != nil {
		return h.walkFailed(ctx, t, p, fmt.Errorf("record walk page: %w", err))
	}
	spread := 1
	if next == "" {
		spread = h.Config.WorkerConcurrency
	}
	for _, batch := range itemBatches(toHarvest, h.Config.HarvestBatchFiles, spread) {
		payload := queue.ItemPayload{RequestID: t.job.RequestID, Repair: p.Repair != ""}
		batchIDs := make([]string, len(batch))
		for i, f := range batch {
			batchIDs[i] = f.id
			if f.file != nil {
				payload.ContainerID = t.ctr.ID
				payload.Files = append(payload.Files, *f.file)
			} else {
				payload.ItemIDs = append(payload.ItemIDs, f.id)
			}
		}
		it, err := queue.NewTask(queue.TypeItem, payload)
		if err != nil {
			return err
		}
		// The batch key is derived from its ids: a re-delivered page makes
		// the same batches, which the queue refuses as duplicates.
		key := p.Repair + ids.Derived(batchIDs...)
		if err := jobs.Enqueue(ctx, h.Queue, it, jobs.ItemTaskOptions(h.names, t.job.RequestID, key, t.job.Priority)...); err != nil {
			return err
		}
	}
	if next != "" {
		nt, err := queue.NewTask(queue.TypeWalk, queue.WalkPayload{RequestID: t.job.RequestID, ContainerID: t.ctr.ID,
			Cursor: next, Page: p.Page + 1, Repair: p.Repair})
		if err != nil {
			return err
		}
		return jobs.Enqueue(ctx, h.Queue, nt, jobs.WalkTaskOptions(h.names, t.job.RequestID, p.Repair, next)...)
	}
	return h.finishWalk(ctx, t, "")
}

// upsertItems records what a page lists: the files that are items already
// (restored when they were deleted) are updated in one statement, which
// says which changed since their last harvest; the others are new. It
// returns, in path order, the files to harvest: all of them with all, else
// the new and changed ones. A new file becomes an item when it is
// harvested (its row is written once, whole).
func upsertItems(tx *store.DB, t *target, entries []storage.Entry, all bool) ([]harvestable, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	n := len(entries)
	ids, paths, etags := make([]string, n), make([]string, n), make([]string, n)
	sizes, modified := make([]int64, n), make([]time.Time, n)
	for i, e := range entries {
		ids[i], paths[i], etags[i] = models.ItemID(t.ctr.ID, e.Path), e.Path, e.ETag
		sizes[i], modified[i] = e.Size, e.LastModified.UTC()
	}
	changed, err := store.UpdateListedItems(tx, t.ctr.ID, paths, sizes, etags, modified, t.now().UTC())
	if err != nil {
		return nil, err
	}
	var out []harvestable
	for i, id := range ids { // entries come in path order
		c, known := changed[id]
		switch {
		case !known:
			e := entries[i]
			out = append(out, harvestable{id: id, size: sizes[i],
				file: &queue.FileEntry{Path: e.Path, Size: e.Size, ETag: e.ETag, Modified: modified[i]}})
		case all || c:
			out = append(out, harvestable{id: id, size: sizes[i]})
		}
	}
	return out, nil
}

// harvestable is a listed file to harvest: an item, or a new file (file).
type harvestable struct {
	id   string
	size int64
	file *queue.FileEntry
}

// itemBatches cuts files, in order, into batches of at most maxFiles files
// and ItemBatchBytes bytes (a file larger than that goes alone).
//
// spread is how many batches the files make at least, when there are
// minSpreadFiles for each: the walk's last page is spread over the
// worker's concurrency. Its batches are the last of the harvest in the
// queue, and with whole batches the harvest ended on one or two of them
// while the other workers had nothing left (a harvest of 500 small files
// was one task, on one core); smaller ones end together.
func itemBatches(files []harvestable, maxFiles, spread int) [][]harvestable {
	maxFiles = max(maxFiles, 1)
	if k := min(spread, len(files)/minSpreadFiles); k > 1 {
		maxFiles = min(maxFiles, (len(files)+k-1)/k)
	}
	var out [][]harvestable
	var cur []harvestable
	var bytes int64
	for _, f := range files {
		if len(cur) > 0 && (len(cur) >= maxFiles || bytes+f.size > ItemBatchBytes) {
			out = append(out, cur)
			cur, bytes = nil, 0
		}
		cur = append(cur, f)
		bytes += f.size
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// finishWalk completes the walk once: items not seen since the walk began
// are marked deleted, the job's walk_complete is set, and the container's
// version (number of harvests) goes up.
func (h *Handler) finishWalk(ctx context.Context, t *target, note string) error {
	return h.DB.WithContext(ctx).Transaction(func(tx *store.DB) error {
		completed, err := store.CompleteWalk(tx, t.job.RequestID, h.Now().UTC())
		if err != nil || !completed {
			return err
		}
		now := h.Now().UTC()
		if note != "" {
			a := activity(t, models.ActivityWalk, t.ctr.ID+":skipped")
			a.Name, a.Source = t.ctr.Name, note
			_, err := insertActivity(tx, a)
			return err
		}
		gone, err := store.UnseenItems(tx, t.ctr.ID, t.job.Created)
		if err != nil {
			return err
		}
		if len(gone) > 0 {
			if err := store.MarkItemsDeleted(tx, gone, now); err != nil {
				return err
			}
			if _, err := search.IndexInTx(ctx, tx, h.Search, gone...); err != nil {
				return err
			}
		}
		return store.FinishContainerWalk(tx, t.ctr.ID, t.job.RequestID, now)
	})
}

// walkFailed records a walk that cannot go on (bad location, container
// gone, or an error that outlasted every retry) and completes the job, so
// that it ends with the error instead of running forever; errors with
// retries left are returned for a retry.
func (h *Handler) walkFailed(ctx context.Context, t *target, p queue.WalkPayload, cause error) error {
	// A task stopped (the worker shutting down, a timeout) is run again by
	// asynq: it has not failed.
	if ctx.Err() != nil || !errors.Is(cause, asynq.SkipRetry) && retriesLeft(ctx) {
		return cause
	}
	err := h.DB.WithContext(ctx).Transaction(func(tx *store.DB) error {
		a := activity(t, models.ActivityWalk, t.ctr.ID+":"+p.Cursor)
		a.Name, a.Source, a.Error = t.ctr.Name, p.Cursor, cause.Error()
		fresh, err := insertActivity(tx, a)
		if err != nil || !fresh {
			return err
		}
		return store.FailWalk(tx, t.job.RequestID, h.Now().UTC())
	})
	if err != nil {
		return err
	}
	return cause
}
