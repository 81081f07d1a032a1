package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Harvest job reports, read from the activity rows the workers write, as
// the view activity_rows shows them (an item's extractor runs without error
// are folded into its harvestend row; the view unfolds them).

// allKinds is the condition of a statement that reads activity rows of
// every kind by request (and item), on the table aliased as alias: a
// harvestend row is indexed by (request_id, item_id) in activities_end
// only, the other rows in activities_request_item only (migration 00027).
// Postgres reads both indexes for it (a bitmap OR); without it, neither
// index answers, and the statement reads the whole table.
func allKinds(alias string) string {
	return "(" + alias + ".kind = 'harvestend' OR " + alias + ".kind <> 'harvestend')"
}

// errorHashSQL is the error hash of an activity row: the stored MD5, or the
// MD5 of the message when a writer left it empty.
const errorHashSQL = "COALESCE(NULLIF(error_hash, ''), md5(error))"

// Job loads the job of a request id: 404 when unknown.
func Job(db *gorm.DB, requestID string) (models.Job, error) {
	return TakeWhere[models.Job](db.Where("request_id = ?", requestID), "harvest request", requestID)
}

// ActivityItem loads the id, place and name of an item, soft-deleted ones
// included (their history stays readable): 404 when unknown.
func ActivityItem(db *gorm.DB, itemID string) (models.Item, error) {
	return TakeWhere[models.Item](db.Select("id", "location_id", "container_id", "name").Where("id = ?", itemID), "item", itemID)
}

// ExtractorRan reports whether extractor rows of that name match cond.
func ExtractorRan(db *gorm.DB, name, cond string, args ...any) (bool, error) {
	var n int64
	err := db.Raw("SELECT count(*) FROM (SELECT 1 FROM activity_rows WHERE kind = 'extractor' AND name = ? AND "+
		cond+" LIMIT 1) x", append([]any{name}, args...)...).Scan(&n).Error
	if err != nil {
		return false, fmt.Errorf("find runs of extractor %s: %w", name, err)
	}
	return n > 0, nil
}

// ExtractorCount is how many runs of an extractor failed.
type ExtractorCount struct {
	RequestID string
	Name      string
	NumErrors int64
}

// ExtractorCounts summarises the extractor rows matching cond by extractor.
func ExtractorCounts(db *gorm.DB, cond string, args ...any) ([]ExtractorCount, error) {
	var rows []ExtractorCount
	err := db.Raw(`SELECT name, count(*) FILTER (WHERE error <> '') AS num_errors
		FROM activity_rows WHERE kind = 'extractor' AND `+cond+` GROUP BY name ORDER BY name`, args...).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("count extractor runs: %w", err)
	}
	return rows, nil
}

// JobsExtractorCounts summarises the extractor rows of the given jobs that
// v may see, by job and extractor.
func JobsExtractorCounts(db *gorm.DB, v Viewer, requestIDs []string) ([]ExtractorCount, error) {
	vis, vargs := v.VisibleSQL("j.location_id", "j.container_id")
	var rows []ExtractorCount
	err := db.Raw(`SELECT a.request_id, a.name, count(*) FILTER (WHERE a.error <> '') AS num_errors
		FROM activity_rows a JOIN jobs j ON j.request_id = a.request_id
		WHERE a.kind = 'extractor' AND a.request_id = ANY(?) AND `+vis+`
		GROUP BY a.request_id, a.name ORDER BY a.request_id, a.name`,
		append([]any{models.Strings(requestIDs)}, vargs...)...).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("count extractor runs of jobs: %w", err)
	}
	return rows, nil
}

// ExtractorError is a distinct error of an extractor and how many files
// it failed on.
type ExtractorError struct {
	Error     string `json:"error"`
	ErrorHash string `json:"error_hash"`
	NumFiles  int64  `json:"num_files"`
}

// JobExtractorErrors lists one page of a job's distinct errors of one
// extractor, most files first, with their total.
func JobExtractorErrors(db *gorm.DB, requestID, name string, p Page) ([]ExtractorError, int64, error) {
	const from = ` FROM activities WHERE request_id = ? AND kind = 'extractor' AND name = ? AND error <> ''`
	var total int64
	if err := db.Raw(`SELECT count(DISTINCT `+errorHashSQL+`)`+from, requestID, name).Scan(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count errors of %s in %s: %w", name, requestID, err)
	}
	rows := []ExtractorError{}
	err := db.Raw(`SELECT `+errorHashSQL+` AS error_hash, min(error) AS error, count(DISTINCT item_id) AS num_files`+from+
		` GROUP BY 1 ORDER BY num_files DESC, error_hash LIMIT ? OFFSET ?`, requestID, name, p.Limit, p.Offset).
		Scan(&rows).Error
	if err != nil {
		return nil, 0, fmt.Errorf("list errors of %s in %s: %w", name, requestID, err)
	}
	return rows, total, nil
}

// ActivityFile is an item of a report.
type ActivityFile struct {
	ItemID string `json:"item_id"`
	Name   string `json:"name"`
}

// JobErrorFiles lists one page of the files on which one extractor failed
// with one error (by hash) in a job, by name, with their total.
func JobErrorFiles(db *gorm.DB, requestID, name, hash string, p Page) ([]ActivityFile, int64, error) {
	const cond = `request_id = ? AND kind = 'extractor' AND name = ? AND error <> '' AND ` + errorHashSQL + ` = ?`
	var total int64
	if err := db.Raw(`SELECT count(DISTINCT item_id) FROM activities WHERE `+cond, requestID, name, hash).Scan(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count files of error %s: %w", hash, err)
	}
	files := []ActivityFile{}
	if total == 0 {
		return files, 0, nil
	}
	// Named by the item, or, for an item gone since, by the job's
	// harvestend row.
	err := db.Raw(`SELECT a.item_id, COALESCE(NULLIF(i.name, ''), (SELECT h.name FROM activities h
			WHERE h.item_id = a.item_id AND h.request_id = ? AND h.kind = 'harvestend' ORDER BY h.id LIMIT 1), '') AS name
		FROM (SELECT DISTINCT item_id FROM activities WHERE `+cond+`) a
		LEFT JOIN items i ON i.id = a.item_id
		ORDER BY name, a.item_id LIMIT ? OFFSET ?`, requestID, requestID, name, hash, p.Limit, p.Offset).Scan(&files).Error
	if err != nil {
		return nil, 0, fmt.Errorf("list files of error %s: %w", hash, err)
	}
	return files, total, nil
}

// JobItems lists one page of the items a job harvested (its harvestend
// rows), in the order they finished, with their total.
func JobItems(db *gorm.DB, requestID string, p Page) ([]ActivityFile, int64, error) {
	const from = ` FROM activities WHERE request_id = ? AND kind = 'harvestend' AND item_id <> ''`
	var total int64
	if err := db.Raw(`SELECT count(DISTINCT item_id)`+from, requestID).Scan(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count items of %s: %w", requestID, err)
	}
	files := []ActivityFile{}
	err := db.Raw(`SELECT item_id, min(name) AS name`+from+` GROUP BY item_id ORDER BY min(ts), min(id), item_id LIMIT ? OFFSET ?`,
		requestID, p.Limit, p.Offset).Scan(&files).Error
	if err != nil {
		return nil, 0, fmt.Errorf("list items of %s: %w", requestID, err)
	}
	return files, total, nil
}

// ItemJobs lists one page of the jobs v may see that touched an item (its
// activity rows, or a single-item job not yet run), newest first. Every job
// has a container, the item's if it touched the item: its jobs are read in
// order (jobs_container) and each probed for a row of the item
// (activities_end and activities_request_item: allKinds).
func ItemJobs(db *gorm.DB, v Viewer, item models.Item, p Page) ([]models.Job, int64, error) {
	vis, vargs := v.VisibleSQL("jobs.location_id", "jobs.container_id")
	q := db.Where(`container_id = ? AND (item_id = ? OR
		EXISTS (SELECT 1 FROM activities a WHERE a.request_id = jobs.request_id AND a.item_id = ? AND `+allKinds("a")+`))`,
		item.ContainerID, item.ID, item.ID).
		Where(vis, vargs...)
	return List[models.Job](q, p, "created DESC, request_id DESC")
}

// ItemActivities lists one page of an item's activity rows in a job, in
// time order.
func ItemActivities(db *gorm.DB, itemID, requestID string, p Page) ([]models.Activity, int64, error) {
	return List[models.Activity](db.Table("activity_rows").Where("item_id = ? AND request_id = ?", itemID, requestID), p, "ts, id")
}

// ItemError is a distinct error of an extractor on an item.
type ItemError struct {
	Error     string `json:"error"`
	ErrorHash string `json:"error_hash"`
}

// ItemExtractorErrors lists the distinct errors of one extractor on an
// item in a job, first seen first.
func ItemExtractorErrors(db *gorm.DB, itemID, requestID, name string) ([]ItemError, error) {
	rows := []ItemError{}
	err := db.Raw(`SELECT `+errorHashSQL+` AS error_hash, min(error) AS error
		FROM activity_rows WHERE item_id = ? AND request_id = ? AND kind = 'extractor' AND name = ? AND error <> ''
		GROUP BY 1 ORDER BY min(ts), min(id)`, itemID, requestID, name).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list errors of %s on %s: %w", name, itemID, err)
	}
	return rows, nil
}
