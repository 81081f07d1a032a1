package store

import (
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// The statements of a walk (worker/walk.go): a page's listed files, the
// job's counters, and the end of the walk.

// UpdateListedItems records the files a page of the container lists that
// are items already (restored when they were deleted): their size, etag
// and modification time, seen at now. The columns are the files' paths,
// sizes, etags and modification times, one entry per file. It returns, for
// each item it updated, whether the file changed since its last harvest
// (or was never harvested); a listed file missing from it is not an item
// yet.
func UpdateListedItems(db *DB, containerID string, paths []string, sizes []int64, etags []string, modified []time.Time, now time.Time) (map[string]bool, error) {
	found, err := itemsAtPaths(db, containerID, paths)
	if err != nil || len(found) == 0 {
		return map[string]bool{}, err
	}
	// In id order, the order every writer locks item rows in.
	slices.SortFunc(found, func(a, b itemAtPath) int { return strings.Compare(a.id, b.id) })
	n := len(found)
	ids, fsizes, fetags, fmodified := make([]string, n), make([]int64, n), make([]string, n), make([]time.Time, n)
	for k, f := range found {
		ids[k], fsizes[k], fetags[k], fmodified[k] = f.id, sizes[f.at], etags[f.at], modified[f.at]
	}
	rows, err := db.Statement.ConnPool.QueryContext(db.Statement.Context, `
		UPDATE items i SET size = x.size, etag = x.etag, last_modified = x.last_modified,
			last_seen_at = $5, deleted_at = NULL, updated_at = $5
		FROM unnest($1::text[], $2::int8[], $3::text[], $4::timestamptz[]) AS x(id, size, etag, last_modified)
		WHERE i.id = x.id
		RETURNING i.id, i.last_harvested IS NULL OR i.etag <> i.harvested_etag`,
		ids, fsizes, fetags, fmodified, now)
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
	return changed, nil
}

// itemsAtPathsSQL finds the items of container $2 at paths $1, with the
// index of each path in $1 (from 1).
const itemsAtPathsSQL = `
SELECT f.id, x.n - 1
FROM unnest($1::text[]) WITH ORDINALITY AS x(path, n)
CROSS JOIN LATERAL (SELECT j.id FROM items j WHERE j.container_id = $2 AND j.path = x.path LIMIT 1) f`

// itemAtPath is an item found at paths[at].
type itemAtPath struct {
	id string
	at int
}

// itemsAtPaths finds the items of the container at paths, each probed by
// (container_id, path), the id's derivation, not by id: a container's
// rows are neighbours in that index, where ids are spread over the whole
// primary key (a page of a new container probes one leaf instead of a
// thousand random ones: on a platform of a million items the probes by id
// cost the walk ten times as much as on an empty one). The probes are
// lateral, one a path, whatever Postgres believes of the container: a
// container being harvested grows faster than its statistics, and a join
// planned on them read every item the container had so far for each page
// of paths (20,000 rows for each batch of 500 late in a harvest of 20,000
// files).
func itemsAtPaths(db *DB, containerID string, paths []string) ([]itemAtPath, error) {
	rows, err := db.Statement.ConnPool.QueryContext(db.Statement.Context, itemsAtPathsSQL, paths, containerID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []itemAtPath
	for rows.Next() {
		var f itemAtPath
		if err := rows.Scan(&f.id, &f.at); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
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
