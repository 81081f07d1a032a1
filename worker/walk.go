package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
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
		if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrContainerMissing) {
			return h.walkFailed(ctx, t, p, permanent("container %s not found in storage", t.ctr.Name))
		}
		return h.walkFailed(ctx, t, p, fmt.Errorf("list %s: %w", t.ctr.Name, err))
	}
	var toHarvest []harvestable
	err = h.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
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
		return tx.Model(&models.Job{}).Where("request_id = ?", t.job.RequestID).Updates(map[string]any{
			"walked_count":   gorm.Expr("walked_count + ?", len(entries)),
			"enqueued_count": gorm.Expr("enqueued_count + ?", len(toHarvest)),
			"updated":        h.Now().UTC(),
		}).Error
	})
	if err != nil {
		return h.walkFailed(ctx, t, p, fmt.Errorf("record walk page: %w", err))
	}
	for _, batch := range itemBatches(toHarvest, h.Config.HarvestBatchFiles) {
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
func upsertItems(tx *gorm.DB, t *target, entries []storage.Entry, all bool) ([]harvestable, error) {
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
	// The items are looked up by (container_id, path), the id's
	// derivation, not by id: a container's rows are neighbours in that
	// index, where ids are spread over the whole primary key (a page of
	// a new container probes one leaf instead of a thousand random ones:
	// on a platform of a million items the probes by id cost the walk ten
	// times as much as on an empty one).
	rows, err := tx.Statement.ConnPool.QueryContext(tx.Statement.Context, `
		UPDATE items i SET size = x.size, etag = x.etag, last_modified = x.last_modified,
			last_seen_at = $6, deleted_at = NULL, updated_at = $6
		FROM unnest($1::text[], $2::int8[], $3::text[], $4::timestamptz[]) AS x(path, size, etag, last_modified)
		WHERE i.container_id = $5 AND i.path = x.path
		RETURNING i.id, i.last_harvested IS NULL OR i.etag <> i.harvested_etag`,
		paths, sizes, etags, modified, t.ctr.ID, t.now().UTC())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	changed := make(map[string]bool, n)
	for rows.Next() {
		var id string
		var isChanged bool
		if err := rows.Scan(&id, &isChanged); err != nil {
			return nil, err
		}
		changed[id] = isChanged
	}
	if err := rows.Err(); err != nil {
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
func itemBatches(files []harvestable, maxFiles int) [][]harvestable {
	maxFiles = max(maxFiles, 1)
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
	return h.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&models.Job{}).Where("request_id = ? AND NOT walk_complete", t.job.RequestID).
			Updates(map[string]any{"walk_complete": true, "updated": h.Now().UTC()})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		now := h.Now().UTC()
		if note != "" {
			a := activity(t, models.ActivityWalk, t.ctr.ID+":skipped")
			a.Name, a.Source = t.ctr.Name, note
			_, err := insertActivity(tx, a)
			return err
		}
		var gone []string
		if err := tx.Model(&models.Item{}).Where("container_id = ? AND deleted_at IS NULL AND last_seen_at < ?",
			t.ctr.ID, t.job.Created).Pluck("id", &gone).Error; err != nil {
			return err
		}
		if len(gone) > 0 {
			if err := tx.Model(&models.Item{}).Where("id IN ?", gone).Update("deleted_at", now).Error; err != nil {
				return err
			}
			if _, err := search.IndexInTx(ctx, tx, h.Search, gone...); err != nil {
				return err
			}
		}
		return tx.Model(&models.Container{}).Where("id = ?", t.ctr.ID).Updates(map[string]any{
			"version": gorm.Expr("version + 1"), "last_walked": now, "last_harvested": now,
			"request_id": t.job.RequestID, "updated_at": now,
		}).Error
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
	err := h.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		a := activity(t, models.ActivityWalk, t.ctr.ID+":"+p.Cursor)
		a.Name, a.Source, a.Error = t.ctr.Name, p.Cursor, cause.Error()
		fresh, err := insertActivity(tx, a)
		if err != nil || !fresh {
			return err
		}
		return tx.Model(&models.Job{}).Where("request_id = ?", t.job.RequestID).Updates(map[string]any{
			"error_count": gorm.Expr("error_count + 1"), "walk_complete": true, "updated": h.Now().UTC(),
		}).Error
	})
	if err != nil {
		return err
	}
	return cause
}
