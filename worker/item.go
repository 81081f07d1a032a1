package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// Item harvests one item: runs the job's extractors on the file and stores
// their results, the item's new state, its activity rows and the counters
// in one transaction. A harvestend row keyed by (request, item) makes a
// second delivery a no-op.
func (h *Handler) Item(ctx context.Context, task *asynq.Task) error {
	var p queue.ItemPayload
	if err := queue.Decode(task, &p); err != nil {
		return err
	}
	var item models.Item
	err := h.DB.WithContext(ctx).Where("id = ?", p.ItemID).Take(&item).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return permanent("item %s not found", p.ItemID)
	} else if err != nil {
		return fmt.Errorf("load item %s: %w", p.ItemID, err)
	}
	t, err := h.loadTarget(ctx, p.RequestID, item.ContainerID)
	if err != nil {
		return err
	}
	if t.job.Cancelled || item.DeletedAt != nil {
		return nil
	}
	var done int64
	if err := h.DB.WithContext(ctx).Model(&models.Activity{}).
		Where("dedupe_key = ?", models.ActivityHarvestEnd+":"+t.job.RequestID+":"+item.ID).Count(&done).Error; err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	names, err := h.extractorsFor(ctx, t, item)
	if err != nil {
		return err
	}
	start := time.Now()
	st, err := h.openStorage(t.loc)
	if err != nil {
		return h.itemFailed(ctx, t, item, err)
	}
	entry, err := st.Stat(ctx, t.ctr.Name, item.Path)
	if errors.Is(err, storage.ErrNotFound) {
		return h.itemGone(ctx, t, item)
	} else if err != nil {
		return fmt.Errorf("stat %s: %w", item.Path, err)
	}
	if !t.opts.Force && t.job.ItemID != "" && item.LastHarvested != nil && entry.ETag == item.HarvestedETag {
		return h.record(ctx, t, item, entry, nil, nil, time.Since(start), "unchanged since the last harvest")
	}
	local, cleanup, download, err := h.localCopy(ctx, st, t, item)
	if err != nil {
		return err
	}
	defer cleanup()
	artifactRel := filepath.ToSlash(filepath.Join(item.ID[:2], item.ID))
	artifactDir := filepath.Join(h.Config.DataDir, "artifacts", artifactRel)
	// A re-delivered task starts from a clean artifact directory.
	if err := os.RemoveAll(artifactDir); err != nil {
		return fmt.Errorf("clean artifacts: %w", err)
	}
	if err := os.MkdirAll(artifactDir, 0o750); err != nil {
		return fmt.Errorf("artifact dir: %w", err)
	}
	in := &extractors.Input{ItemID: item.ID, Name: item.Name, Path: local, Size: entry.Size, ArtifactDir: artifactDir}
	outcomes := extractors.Run(ctx, h.Extractors, names, in, h.Config.ExtractorTimeout)
	if ctx.Err() != nil {
		return ctx.Err() // cancelled or timed out as a whole: let asynq retry
	}
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	for _, o := range outcomes {
		if o.Err != nil && extractors.IsTransient(o.Err) && retried < maxRetry {
			return fmt.Errorf("extractor %s: %w", o.Name, o.Err)
		}
	}
	return h.record(ctx, t, item, entry, outcomes, download, time.Since(start), artifactRel)
}

// extractorsFor applies new_extractors_only: only extractors enabled since
// the item's last harvest, or never run on it, besides the base ones.
func (h *Handler) extractorsFor(ctx context.Context, t *target, item models.Item) ([]string, error) {
	names := []string(t.job.Extractors)
	if !t.opts.NewExtractorsOnly || item.LastHarvested == nil {
		return names, nil
	}
	var ran []string
	if err := h.DB.WithContext(ctx).Model(&models.ItemResult{}).Where("item_id = ? AND error = ''", item.ID).
		Pluck("extractor", &ran).Error; err != nil {
		return nil, err
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

// record stores one harvest's outcome. note is the artifact directory on a
// real run, or a reason when nothing ran.
func (h *Handler) record(ctx context.Context, t *target, item models.Item, entry storage.Entry,
	outcomes []extractors.Outcome, download *models.Activity, took time.Duration, note string) error {
	now := time.Now().UTC()
	return h.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if download != nil {
			if _, err := insertActivity(tx, *download); err != nil {
				return err
			}
		}
		var failed []string
		if outcomes != nil {
			meta := map[string]json.RawMessage{}
			if len(item.Metadata) > 0 {
				_ = json.Unmarshal(item.Metadata, &meta)
			}
			mime := item.MimeType
			if err := tx.Where("item_id = ?", item.ID).Delete(&models.Artifact{}).Error; err != nil {
				return err
			}
			for _, o := range outcomes {
				version := ""
				if info, ok := h.Extractors.Get(o.Name); ok {
					version = info.Version
				}
				res := models.ItemResult{ItemID: item.ID, Extractor: o.Name, Version: version, RequestID: t.job.RequestID, RanAt: now, Data: models.JSON("{}")}
				a := activity(t, models.ActivityExtractor, item.ID+":"+o.Name)
				a.ItemID, a.Name, a.Source, a.Duration, a.Bytes = item.ID, o.Name, item.Name, o.Duration.Milliseconds(), entry.Size
				if o.Err != nil {
					res.Error, a.Error = o.Err.Error(), o.Err.Error()
					failed = append(failed, o.Name)
					delete(meta, o.Name)
				} else {
					data := models.MustJSON(o.Data)
					res.Data = data
					meta[o.Name] = json.RawMessage(data)
					if o.Name == "mime_type" {
						if m, ok := o.Data["mime_type"].(string); ok {
							mime = m
						}
					}
					for _, art := range o.Artifacts {
						row := models.Artifact{ItemID: item.ID, Path: note + "/" + art.Path, Extractor: o.Name,
							Kind: art.Kind, Width: art.Width, Height: art.Height}
						if err := tx.Save(&row).Error; err != nil {
							return err
						}
					}
				}
				if err := tx.Save(&res).Error; err != nil {
					return err
				}
				a.Count = 1
				if _, err := insertActivity(tx, a); err != nil {
					return err
				}
			}
			lm := entry.LastModified.UTC()
			if err := tx.Model(&models.Item{}).Where("id = ?", item.ID).Updates(map[string]any{
				"metadata": models.MustJSON(meta), "mime_type": mime, "size": entry.Size, "etag": entry.ETag,
				"last_modified": lm, "harvested_etag": entry.ETag, "last_harvested": now,
				"harvest_failed": len(failed) > 0, "updated_at": now,
			}).Error; err != nil {
				return err
			}
			if err := markDirty(tx, item.ID); err != nil {
				return err
			}
		}
		end := activity(t, models.ActivityHarvestEnd, item.ID)
		end.ItemID, end.Name, end.Source = item.ID, item.Name, item.Path
		end.Count, end.Bytes, end.Duration = int64(len(outcomes)), entry.Size, took.Milliseconds()
		if outcomes == nil {
			end.Source = note
		}
		if len(failed) > 0 {
			end.Error = fmt.Sprintf("%d extractor(s) failed: %s", len(failed), strings.Join(failed, ", "))
		}
		fresh, err := insertActivity(tx, end)
		if err != nil || !fresh || outcomes == nil {
			return err
		}
		jobUpd := map[string]any{"indexed_count": gorm.Expr("indexed_count + 1"), "updated": now}
		ctrUpd := map[string]any{"harvest_success_count": gorm.Expr("harvest_success_count + 1"), "updated_at": now}
		if len(failed) > 0 {
			jobUpd["error_count"] = gorm.Expr("error_count + 1")
			ctrUpd = map[string]any{"harvest_failure_count": gorm.Expr("harvest_failure_count + 1"),
				"last_harvested_failure": now, "updated_at": now}
		}
		if err := tx.Model(&models.Job{}).Where("request_id = ?", t.job.RequestID).Updates(jobUpd).Error; err != nil {
			return err
		}
		return tx.Model(&models.Container{}).Where("id = ?", t.ctr.ID).Updates(ctrUpd).Error
	})
}

// itemGone records a file that disappeared before its harvest.
func (h *Handler) itemGone(ctx context.Context, t *target, item models.Item) error {
	now := time.Now().UTC()
	return h.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.Item{}).Where("id = ?", item.ID).Update("deleted_at", now).Error; err != nil {
			return err
		}
		if err := markDirty(tx, item.ID); err != nil {
			return err
		}
		end := activity(t, models.ActivityHarvestEnd, item.ID)
		end.ItemID, end.Name, end.Source, end.Error = item.ID, item.Name, item.Path, "the file no longer exists in storage"
		fresh, err := insertActivity(tx, end)
		if err != nil || !fresh {
			return err
		}
		return tx.Model(&models.Job{}).Where("request_id = ?", t.job.RequestID).
			Updates(map[string]any{"error_count": gorm.Expr("error_count + 1"), "updated": now}).Error
	})
}

// itemFailed records an item that cannot be harvested at all (its location
// no longer opens); transient errors go back for a retry.
func (h *Handler) itemFailed(ctx context.Context, t *target, item models.Item, cause error) error {
	if !errors.Is(cause, asynq.SkipRetry) {
		return cause
	}
	now := time.Now().UTC()
	err := h.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		end := activity(t, models.ActivityHarvestEnd, item.ID)
		end.ItemID, end.Name, end.Source, end.Error = item.ID, item.Name, item.Path, cause.Error()
		fresh, err := insertActivity(tx, end)
		if err != nil || !fresh {
			return err
		}
		return tx.Model(&models.Job{}).Where("request_id = ?", t.job.RequestID).
			Updates(map[string]any{"error_count": gorm.Expr("error_count + 1"), "updated": now}).Error
	})
	if err != nil {
		return err
	}
	return cause
}
