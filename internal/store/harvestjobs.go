package store

import (
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/models"
)

// The rows a harvest job is started from and recorded in (internal/jobs'
// Starter; the api, the scheduler and the command line start jobs through
// it).

// LiveItemOf loads an item of the location that is not deleted: 404 when
// there is none.
func LiveItemOf(db *DB, locationID, itemID string) (models.Item, error) {
	return TakeWhere[models.Item](db.Where("id = ? AND location_id = ? AND deleted_at IS NULL", itemID, locationID), "item", itemID)
}

// ContainerOf loads a container of the location: 404 when there is none.
func ContainerOf(db *DB, locationID, containerID string) (models.Container, error) {
	return TakeWhere[models.Container](db.Where("id = ? AND location_id = ?", containerID, locationID), "container", containerID)
}

// InsertJob records a new job; a job of the same request id is left as it
// is (a start delivered twice records one job): created is false then.
func InsertJob(db *DB, job *models.Job) (created bool, err error) {
	res := db.Clauses(clause.OnConflict{DoNothing: true}).Create(job)
	if res.Error != nil {
		return false, fmt.Errorf("create job: %w", res.Error)
	}
	return res.RowsAffected > 0, nil
}

// InsertCompleteJob records a job that needs no worker (its walk skipped)
// with the activity row a worker would have written, in one transaction;
// a job of the same request id is left as it is, and no row is added.
func InsertCompleteJob(db *DB, job *models.Job, walk *models.Activity) error {
	return db.Transaction(func(tx *gorm.DB) error {
		created, err := InsertJob(tx, job)
		if err != nil || !created {
			return err
		}
		return tx.Table(models.ActivitiesTable).Create(walk).Error
	})
}

// ExtractorSettings lists the extractors' enabled switches recorded on
// this platform (an extractor without a row has its registry default).
func ExtractorSettings(db *DB) ([]models.ExtractorSetting, error) {
	var rows []models.ExtractorSetting
	if err := db.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list extractor settings: %w", err)
	}
	return rows, nil
}

// LiveHarvestingOff reports whether the platform's switch
// feature:disabled_live_harvesting is "true".
func LiveHarvestingOff(db *DB) (bool, error) {
	var off int64
	if err := db.Model(&models.Setting{}).Where("key = ? AND value = 'true'", "feature:disabled_live_harvesting").
		Count(&off).Error; err != nil {
		return false, fmt.Errorf("read live harvesting switch: %w", err)
	}
	return off > 0, nil
}

// DueContainers lists the enabled containers not walked since before, by
// id: those a live harvest walks again.
func DueContainers(db *DB, before time.Time) ([]models.Container, error) {
	var due []models.Container
	if err := db.Where("enabled AND (last_walked IS NULL OR last_walked <= ?)", before).Order("id").Find(&due).Error; err != nil {
		return nil, fmt.Errorf("list due containers: %w", err)
	}
	return due, nil
}

// WalkingRecently reports whether a harvest of the container other than
// requestID walks it: a container harvest (not of one item) neither
// cancelled nor skipped that is unfinished (walk incomplete or fewer
// harvestend rows than items enqueued) and progressed within a day, or
// that last progressed after since (it finished less than that ago). Jobs
// created more than a week before now are not looked at: the scheduler
// no longer repairs them either.
func WalkingRecently(db *DB, containerID, requestID string, since, now time.Time) (bool, error) {
	var busy bool
	err := db.Raw(`
SELECT EXISTS (SELECT 1 FROM jobs j
WHERE j.container_id = ? AND j.item_id = '' AND j.request_id <> ? AND NOT j.cancelled
  AND j.created > ? AND j.updated > ?
  AND NOT EXISTS (SELECT 1 FROM activities s WHERE s.request_id = j.request_id AND s.kind = 'walk' AND s.source LIKE 'skipped: %')
  AND (j.updated > ? OR NOT j.walk_complete OR j.enqueued_count >
       (SELECT count(*) FROM activities a WHERE a.request_id = j.request_id AND a.kind = 'harvestend')))`,
		containerID, requestID, now.Add(-7*24*time.Hour), now.Add(-24*time.Hour), since).Scan(&busy).Error
	if err != nil {
		return false, fmt.Errorf("find a recent walk of container %s: %w", containerID, err)
	}
	return busy, nil
}

// StalledJobs lists, oldest first, the unfinished jobs created after since
// that have not progressed since before: not cancelled, walk incomplete or
// fewer harvestend rows than items enqueued.
func StalledJobs(db *DB, since, before time.Time) ([]models.Job, error) {
	var stalled []models.Job
	err := db.Raw(`
SELECT * FROM jobs j
WHERE NOT cancelled AND created > ? AND updated < ?
  AND (NOT walk_complete OR enqueued_count >
       (SELECT count(*) FROM activities a WHERE a.request_id = j.request_id AND a.kind = 'harvestend'))
ORDER BY created`, since, before).Scan(&stalled).Error
	if err != nil {
		return nil, fmt.Errorf("find stalled harvests: %w", err)
	}
	return stalled, nil
}

// ClaimJob moves the job's updated time from its last known value to now:
// false when it had changed meanwhile (another claimer, or progress), so
// that of several claimers one wins.
func ClaimJob(db *DB, job models.Job, now time.Time) (bool, error) {
	res := db.Model(&models.Job{}).Where("request_id = ? AND updated = ?", job.RequestID, job.Updated).Update("updated", now.UTC())
	if res.Error != nil {
		return false, fmt.Errorf("claim job %s: %w", job.RequestID, res.Error)
	}
	return res.RowsAffected > 0, nil
}
