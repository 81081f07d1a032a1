package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

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
	if err := h.DB.WithContext(ctx).Model(&models.Activity{}).Where("dedupe_key IN ?", keys).
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
	a := activity(t, models.ActivityHarvestDownload, item.ID)
	a.ItemID, a.Name, a.Bytes, a.Duration = item.ID, item.Name, n, time.Since(start).Milliseconds()
	return f.Name(), cleanup, &a, nil
}

// recordBatch stores a batch's outcomes in one transaction with multi-row
// statements. Counters move only for harvestend rows this call inserted,
// so recording an item twice counts it once.
func (h *Handler) recordBatch(ctx context.Context, t *target, batch []*harvested) error {
	if len(batch) == 0 {
		return nil
	}
	now := time.Now().UTC()
	var artifacts []models.Artifact
	var acts []models.Activity
	var dirty, gone, ran []string
	failedItem := map[string]bool{}
	type itemState struct {
		ID       string      `json:"id"`
		Metadata models.JSON `json:"metadata"`
		Results  models.JSON `json:"results"`
		MimeType string      `json:"mime_type"`
		Size     int64       `json:"size"`
		ETag     string      `json:"etag"`
		LastMod  time.Time   `json:"last_modified"`
		Failed   bool        `json:"failed"`
	}
	var states []itemState
	for _, hv := range batch {
		it := hv.item
		end := activity(t, models.ActivityHarvestEnd, it.ID)
		end.ItemID, end.Name, end.Source = it.ID, it.Name, it.Path
		end.Bytes, end.Duration = hv.entry.Size, hv.took.Milliseconds()
		switch {
		case hv.gone:
			gone = append(gone, it.ID)
			end.Error = "the file no longer exists in storage"
			failedItem[it.ID] = true
		case hv.fail != "":
			end.Error = hv.fail
			failedItem[it.ID] = true
		case hv.outcomes == nil:
			end.Source = hv.note
		default:
			if hv.download != nil {
				acts = append(acts, *hv.download)
			}
			meta := map[string]json.RawMessage{}
			if len(it.Metadata) > 0 {
				_ = json.Unmarshal(it.Metadata, &meta)
			}
			mime := it.MimeType
			runs := it.Runs()
			var failed []string
			for _, o := range hv.outcomes {
				version := ""
				if info, ok := h.Extractors.Get(o.Name); ok {
					version = info.Version
				}
				run := models.ExtractorRun{Version: version, RequestID: t.job.RequestID, RanAt: now}
				a := activity(t, models.ActivityExtractor, it.ID+":"+o.Name)
				a.ItemID, a.Name, a.Source, a.Count = it.ID, o.Name, it.Name, 1
				a.Duration, a.Bytes = o.Duration.Milliseconds(), hv.entry.Size
				if o.Err != nil {
					run.Error, a.Error = o.Err.Error(), o.Err.Error()
					a.ErrorHash = errorHash(a.Error)
					failed = append(failed, o.Name)
					delete(meta, o.Name)
				} else {
					// The data lives once, in items.metadata; the result row
					// keeps version, error and time of the run.
					meta[o.Name] = json.RawMessage(models.MustJSON(o.Data))
					if m, ok := o.Data["mime_type"].(string); ok && o.Name == "mime_type" {
						mime = m
					}
					for _, art := range o.Artifacts {
						artifacts = append(artifacts, models.Artifact{ItemID: it.ID, Path: hv.artDir + "/" + art.Path,
							Extractor: o.Name, Kind: art.Kind, Width: art.Width, Height: art.Height})
					}
				}
				runs[o.Name] = run
				acts = append(acts, a)
			}
			end.Count = int64(len(hv.outcomes))
			if len(failed) > 0 {
				end.Error = fmt.Sprintf("%d extractor(s) failed: %s", len(failed), strings.Join(failed, ", "))
				failedItem[it.ID] = true
			}
			ran = append(ran, it.ID)
			dirty = append(dirty, it.ID)
			states = append(states, itemState{ID: it.ID, MimeType: mime, ETag: hv.entry.ETag, Size: hv.entry.Size,
				LastMod: hv.entry.LastModified.UTC(), Metadata: models.MustJSON(meta), Results: models.MustJSON(runs),
				Failed: len(failed) > 0})
		}
		if end.Error != "" {
			end.ErrorHash = errorHash(end.Error)
		}
		acts = append(acts, end)
	}
	dirty = append(dirty, gone...)

	return h.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if len(gone) > 0 {
			if err := tx.Model(&models.Item{}).Where("id IN ?", gone).Update("deleted_at", now).Error; err != nil {
				return err
			}
		}
		if len(ran) > 0 {
			if err := tx.Where("item_id IN ?", ran).Delete(&models.Artifact{}).Error; err != nil {
				return err
			}
		}
		if len(artifacts) > 0 {
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).CreateInBatches(artifacts, 500).Error; err != nil {
				return err
			}
		}
		if len(states) > 0 {
			if err := tx.Exec(`UPDATE items i SET metadata = x.metadata, results = x.results, mime_type = x.mime_type, size = x.size,
				etag = x.etag, last_modified = x.last_modified, harvested_etag = x.etag, last_harvested = ?,
				harvest_failed = x.failed, updated_at = ?
				FROM jsonb_to_recordset(?::jsonb) AS x(id text, metadata jsonb, results jsonb, mime_type text, size bigint,
					etag text, last_modified timestamptz, failed boolean)
				WHERE i.id = x.id`, now, now, models.MustJSON(states)).Error; err != nil {
				return err
			}
		}
		if err := markDirty(tx, dirty...); err != nil {
			return err
		}
		// One statement for every activity row of the batch; RETURNING names
		// the harvestend rows this call inserted (the items it finished),
		// and only those move the counters.
		var finished []struct {
			Kind   string
			ItemID string
			Count  int64
		}
		if err := tx.Raw(`INSERT INTO activities (dedupe_key, ts, kind, request_id, location_id, container_id,
				harvest_id, profile_id, extractors, name, source, item_id, count, bytes, error, error_hash, duration)
			SELECT x.dedupe_key, x.ts, x.kind, x.request_id, x.location_id, x.container_id, x.harvest_id,
				x.profile_id, ?::text[], x.name, x.source, x.item_id, x.count, x.bytes, x.error, x.error_hash, x.duration
			FROM jsonb_to_recordset(?::jsonb) AS x(dedupe_key text, ts timestamptz, kind text, request_id text,
				location_id text, container_id text, harvest_id text, profile_id text, name text, source text,
				item_id text, count bigint, bytes bigint, error text, error_hash text, duration bigint)
			ON CONFLICT (dedupe_key) DO NOTHING
			RETURNING kind, item_id, count`, t.job.Extractors, models.MustJSON(activityRows(acts))).Scan(&finished).Error; err != nil {
			return err
		}
		var indexed, failures, successes int64
		for _, f := range finished {
			if f.Kind != models.ActivityHarvestEnd {
				continue
			}
			if f.Count > 0 {
				indexed++
			}
			switch {
			case failedItem[f.ItemID]:
				failures++
			case f.Count > 0:
				successes++
			}
		}
		if indexed+failures+successes == 0 {
			return nil
		}
		if err := tx.Model(&models.Job{}).Where("request_id = ?", t.job.RequestID).Updates(map[string]any{
			"indexed_count": gorm.Expr("indexed_count + ?", indexed),
			"error_count":   gorm.Expr("error_count + ?", failures), "updated": now,
		}).Error; err != nil {
			return err
		}
		upd := map[string]any{
			"harvest_success_count": gorm.Expr("harvest_success_count + ?", successes),
			"harvest_failure_count": gorm.Expr("harvest_failure_count + ?", failures), "updated_at": now,
		}
		if failures > 0 {
			upd["last_harvested_failure"] = now
		}
		return tx.Model(&models.Container{}).Where("id = ?", t.ctr.ID).Updates(upd).Error
	})
}

// activityRow is the JSON shape of an activity row for jsonb_to_recordset
// (the extractors column, the same for the whole job, is a parameter).
type activityRow struct {
	DedupeKey   string    `json:"dedupe_key"`
	TS          time.Time `json:"ts"`
	Kind        string    `json:"kind"`
	RequestID   string    `json:"request_id"`
	LocationID  string    `json:"location_id"`
	ContainerID string    `json:"container_id"`
	HarvestID   string    `json:"harvest_id"`
	ProfileID   string    `json:"profile_id"`
	Name        string    `json:"name"`
	Source      string    `json:"source"`
	ItemID      string    `json:"item_id"`
	Count       int64     `json:"count"`
	Bytes       int64     `json:"bytes"`
	Error       string    `json:"error"`
	ErrorHash   string    `json:"error_hash"`
	Duration    int64     `json:"duration"`
}

func activityRows(acts []models.Activity) []activityRow {
	out := make([]activityRow, len(acts))
	for i, a := range acts {
		out[i] = activityRow{a.DedupeKey, a.TS, a.Kind, a.RequestID, a.LocationID, a.ContainerID, a.HarvestID,
			a.ProfileID, a.Name, a.Source, a.ItemID, a.Count, a.Bytes, a.Error, a.ErrorHash, a.Duration}
	}
	return out
}
