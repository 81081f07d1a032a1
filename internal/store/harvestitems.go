package store

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// The item rows of a harvest's item task (worker/item.go, worker/record.go):
// the items a batch harvests, and what the batch's transaction writes to
// them and to the counters of its job and container.

// harvestItemColumns are the columns of an item a harvest reads. Not
// metadata: it can be large (text, EXIF) and is merged by Postgres.
const harvestItemColumns = "id, container_id, path, name, mime_type, harvested_etag, last_harvested, last_request_id, results, deleted_at"

// HarvestItems loads the items of ids (those that exist), without their
// metadata.
func HarvestItems(db *DB, ids []string) ([]models.Item, error) {
	var items []models.Item
	if err := db.Select(harvestItemColumns).Where("id IN ?", ids).Find(&items).Error; err != nil {
		return nil, fmt.Errorf("load items: %w", err)
	}
	return items, nil
}

// HarvestItemsAt loads the items of the container at paths (those that
// exist), without their metadata. They are found by container and path,
// as the walk finds them (itemsAtPaths).
func HarvestItemsAt(db *DB, containerID string, paths []string) ([]models.Item, error) {
	found, err := itemsAtPaths(db, containerID, paths)
	if err != nil || len(found) == 0 {
		if err != nil {
			err = fmt.Errorf("load items: %w", err)
		}
		return nil, err
	}
	ids := make([]string, len(found))
	for i, f := range found {
		ids[i] = f.id
	}
	return HarvestItems(db, ids)
}

// FinishedItems lists those of ids that the request finished already
// (their harvestend row exists).
func FinishedItems(db *DB, requestID string, ids []string) ([]string, error) {
	var finished []string
	if err := db.Model(&models.Activity{}).
		Where("request_id = ? AND kind = ? AND item_id IN ?", requestID, models.ActivityHarvestEnd, ids).
		Pluck("item_id", &finished).Error; err != nil {
		return nil, err
	}
	return finished, nil
}

// ExtractorsEnabledSince lists the extractors enabled after since.
func ExtractorsEnabledSince(db *DB, since time.Time) ([]string, error) {
	var names []string
	if err := db.Model(&models.ExtractorSetting{}).
		Where("enabled AND enabled_at > ?", since).Pluck("name", &names).Error; err != nil {
		return nil, err
	}
	return names, nil
}

// updateItemsSQL stores harvested items: $1 is the time, $2 the request,
// then the columns of ItemColumns. The earlier data of an extractor that
// failed, or found the file unsupported, leaves the item; the runs of this
// harvest replace the earlier ones by name, and the earlier ones that stay
// take their time and request with them (models.Item.Runs).
const updateItemsSQL = `
UPDATE items i SET metadata = (i.metadata - string_to_array(x.dropped_names, ',')) || x.data::jsonb,
	results = CASE WHEN i.results = '{}' THEN x.runs::jsonb ELSE (
		SELECT coalesce(jsonb_object_agg(e.k, CASE jsonb_typeof(e.v)
			WHEN 'string' THEN jsonb_build_object('version', e.v, 'error', '', 'ran_at', i.last_harvested, 'request_id', i.last_request_id)
			ELSE jsonb_build_object('error', '', 'ran_at', i.last_harvested, 'request_id', i.last_request_id) || e.v END), '{}')
		FROM jsonb_each(i.results) AS e(k, v)) || x.runs::jsonb END,
	mime_type = x.mime_type, size = x.size, etag = x.etag,
	last_modified = x.last_modified, harvested_etag = x.etag, last_harvested = $1, last_request_id = $2,
	harvest_failed = x.failed, updated_at = $1
FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int8[], $9::text[], $10::timestamptz[], $11::bool[])
	AS x(id, data, dropped_names, runs, mime_type, size, etag, last_modified, failed)
WHERE i.id = x.id`

// insertItemsSQL writes the rows of new files, whole: $1 the time, $2 the
// request, $3 and $4 location and container, then the columns of
// ItemColumns, path and name. A file another harvest made an item since
// the walk found none keeps its row, locked here (in id order, with the
// rows inserted) and marked seen: its harvest is stored by
// updateItemsSQL, as any harvested item's. It returns each row's id and
// whether it inserted the row (xmax 0). It has two forms
// (InsertExpectingNew): insertItemsSQL expects every row to be new, and
// fails on one that is there; keyedItemsSQL locks such a row.
var insertItemsSQL, keyedItemsSQL = fmt.Sprintf(itemsSQL, ""),
	fmt.Sprintf(itemsSQL, "ON CONFLICT (id) DO UPDATE SET last_seen_at = excluded.last_seen_at, deleted_at = NULL")

const itemsSQL = `
INSERT INTO items AS i (id, location_id, container_id, path, name, size, etag, last_modified, mime_type, harvested_etag,
	last_harvested, last_request_id, harvest_failed, last_seen_at, metadata, results, created_at, updated_at)
SELECT x.id, $3, $4, x.path, x.name, x.size, x.etag, x.last_modified, x.mime_type, x.etag,
	$1, $2, x.failed, $1, x.data::jsonb, x.runs::jsonb, $1, $1
FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int8[], $11::text[], $12::timestamptz[], $13::bool[],
	$14::text[], $15::text[])
	AS x(id, data, dropped_names, runs, mime_type, size, etag, last_modified, failed, path, name)
%s
RETURNING i.id, i.xmax = 0`

// ItemColumns are harvested items column by column, as updateItemsSQL
// takes them (path and name apart: only insertItemsSQL takes them), in id
// order: the order every writer locks item rows in (search.Drain too), so
// that two transactions over the same items wait for each other rather
// than deadlock.
type ItemColumns struct {
	ID, Data, DroppedNames, Runs, Mime, ETag, Path, Name []string
	Size                                                 []int64
	LastModified                                         []time.Time
	Failed                                               []bool
}

func (c *ItemColumns) args() []any {
	return []any{c.ID, c.Data, c.DroppedNames, c.Runs, c.Mime, c.Size, c.ETag, c.LastModified, c.Failed}
}

// UpdateHarvestedItems stores the harvest of items that have a row
// (updateItemsSQL), at now by the request.
func UpdateHarvestedItems(tx *DB, now time.Time, requestID string, cols *ItemColumns) error {
	if _, err := tx.Statement.ConnPool.ExecContext(tx.Statement.Context, updateItemsSQL, append([]any{now, requestID}, cols.args()...)...); err != nil {
		return fmt.Errorf("update items: %w", err)
	}
	return nil
}

// InsertHarvestedItems writes the rows of new files of the location's
// container, harvested at now by the request (insertItemsSQL), and returns
// the ids of the rows it inserted. The others are rows another harvest
// made meanwhile, locked and left for UpdateHarvestedItems.
func InsertHarvestedItems(tx *DB, now time.Time, requestID, locationID, containerID string, cols *ItemColumns) (map[string]bool, error) {
	args := append([]any{now, requestID, locationID, containerID}, cols.args()...)
	args = append(args, cols.Path, cols.Name)
	conn, err := TxConn(tx)
	if err != nil {
		return nil, err
	}
	ctx := tx.Statement.Context
	var inserted map[string]bool
	run := func(query string) error {
		inserted = map[string]bool{}
		rows, err := conn.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("insert items: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var isNew bool
			if err := rows.Scan(&id, &isNew); err != nil {
				return fmt.Errorf("insert items: %w", err)
			}
			if isNew {
				inserted[id] = true
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("insert items: %w", err)
		}
		return nil
	}
	if err := InsertExpectingNew(ctx, conn, func() error { return run(insertItemsSQL) }, func() error { return run(keyedItemsSQL) }); err != nil {
		return nil, err
	}
	return inserted, nil
}

// CountJobHarvest adds a batch's items with data (indexed) and failed
// items to the job's counters.
func CountJobHarvest(tx *DB, requestID string, indexed, failures int64, now time.Time) error {
	return tx.Model(&models.Job{}).Where("request_id = ?", requestID).Updates(map[string]any{
		"indexed_count": gorm.Expr("indexed_count + ?", indexed),
		"error_count":   gorm.Expr("error_count + ?", failures), "updated": now,
	}).Error
}

// CountContainerHarvest adds a batch's harvested and failed items to the
// container's counters; a failure also sets last_harvested_failure.
func CountContainerHarvest(tx *DB, containerID string, successes, failures int64, now time.Time) error {
	upd := map[string]any{
		"harvest_success_count": gorm.Expr("harvest_success_count + ?", successes),
		"harvest_failure_count": gorm.Expr("harvest_failure_count + ?", failures), "updated_at": now,
	}
	if failures > 0 {
		upd["last_harvested_failure"] = now
	}
	return tx.Model(&models.Container{}).Where("id = ?", containerID).Updates(upd).Error
}
