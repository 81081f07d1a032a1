package store

import (
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// The statements of a walk (worker/walk.go): a page's listed files, the
// job's counters, and the end of the walk.

// UpdateListedItems records the files a page of the container lists that
// are items already (restored when they were deleted), in one statement:
// their size, etag and modification time, seen at now. The columns are the
// files' paths, sizes, etags and modification times, one entry per file.
// It returns, for each item it updated, whether the file changed since its
// last harvest (or was never harvested); a listed file missing from it is
// not an item yet.
func UpdateListedItems(db *DB, containerID string, paths []string, sizes []int64, etags []string, modified []time.Time, now time.Time) (map[string]bool, error) {
	// The items are looked up by (container_id, path), the id's
	// derivation, not by id: a container's rows are neighbours in that
	// index, where ids are spread over the whole primary key (a page of
	// a new container probes one leaf instead of a thousand random ones:
	// on a platform of a million items the probes by id cost the walk ten
	// times as much as on an empty one).
	rows, err := db.Statement.ConnPool.QueryContext(db.Statement.Context, `
		UPDATE items i SET size = x.size, etag = x.etag, last_modified = x.last_modified,
			last_seen_at = $6, deleted_at = NULL, updated_at = $6
		FROM unnest($1::text[], $2::int8[], $3::text[], $4::timestamptz[]) AS x(path, size, etag, last_modified)
		WHERE i.container_id = $5 AND i.path = x.path
		RETURNING i.id, i.last_harvested IS NULL OR i.etag <> i.harvested_etag`,
		paths, sizes, etags, modified, containerID, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	changed := make(map[string]bool, len(paths))
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
	return changed, nil
}

// CountWalkPage adds a walk page's listed and enqueued files to the job's
// counters.
func CountWalkPage(tx *DB, requestID string, walked, enqueued int, now time.Time) error {
	return tx.Model(&models.Job{}).Where("request_id = ?", requestID).Updates(map[string]any{
		"walked_count":   gorm.Expr("walked_count + ?", walked),
		"enqueued_count": gorm.Expr("enqueued_count + ?", enqueued),
		"updated":        now,
	}).Error
}

// CompleteWalk sets the job's walk_complete, once: false when it was set
// already (the walk was completed before).
func CompleteWalk(tx *DB, requestID string, now time.Time) (bool, error) {
	res := tx.Model(&models.Job{}).Where("request_id = ? AND NOT walk_complete", requestID).
		Updates(map[string]any{"walk_complete": true, "updated": now})
	if res.Error != nil || res.RowsAffected == 0 {
		return false, res.Error
	}
	return true, nil
}

// UnseenItems lists the live items of the container not seen by a walk
// since before (the walk's start): the files gone from storage.
func UnseenItems(tx *DB, containerID string, before time.Time) ([]string, error) {
	var gone []string
	if err := tx.Model(&models.Item{}).Where("container_id = ? AND deleted_at IS NULL AND last_seen_at < ?",
		containerID, before).Pluck("id", &gone).Error; err != nil {
		return nil, err
	}
	return gone, nil
}

// MarkItemsDeleted marks the items deleted at now.
func MarkItemsDeleted(tx *DB, ids []string, now time.Time) error {
	return tx.Model(&models.Item{}).Where("id IN ?", ids).Update("deleted_at", now).Error
}

// FinishContainerWalk records a completed walk on its container: its
// version (number of harvests) goes up, and it was walked and harvested at
// now by the request.
func FinishContainerWalk(tx *DB, containerID, requestID string, now time.Time) error {
	return tx.Model(&models.Container{}).Where("id = ?", containerID).Updates(map[string]any{
		"version": gorm.Expr("version + 1"), "last_walked": now, "last_harvested": now,
		"request_id": requestID, "updated_at": now,
	}).Error
}

// FailWalk ends the job's walk with an error: one more error, and
// walk_complete set.
func FailWalk(tx *DB, requestID string, now time.Time) error {
	return tx.Model(&models.Job{}).Where("request_id = ?", requestID).Updates(map[string]any{
		"error_count": gorm.Expr("error_count + 1"), "walk_complete": true, "updated": now,
	}).Error
}
