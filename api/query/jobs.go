package query

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Harvest jobs (jobs rows) and their progress, read from the activity
// rows of their request id.

// ListJobs lists the jobs v may see, newest first, at most limit. With
// running, only the jobs not cancelled, updated within a day, whose walk
// is not complete or whose enqueued files have not all finished (a
// harvestend activity each): what CountRunningJobs counts as running.
func ListJobs(db *gorm.DB, v Viewer, running bool, limit int) ([]models.Job, error) {
	where, args := v.VisibleSQL("j.location_id", "j.container_id")
	if running {
		where += ` AND NOT j.cancelled AND j.updated > now() - interval '1 day'
			AND (NOT j.walk_complete OR j.enqueued_count > (SELECT count(*) FROM activities a
				WHERE a.request_id = j.request_id AND a.kind = 'harvestend'))`
	}
	var rows []models.Job
	if err := db.Raw(`SELECT j.* FROM jobs j WHERE `+where+
		` ORDER BY j.created DESC, j.request_id LIMIT ?`, append(args, limit)...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return rows, nil
}

// JobActivity is what the activity rows of a job say about it.
type JobActivity struct {
	Finished   int64
	Failed     int64
	Unchanged  int64
	WalkPages  int64
	WalkFailed bool
	Skipped    string
	First      *time.Time
	Last       *time.Time
}

// ReadJobActivity summarises the activity rows of a job.
func ReadJobActivity(db *gorm.DB, requestID string) (JobActivity, error) {
	var a JobActivity
	err := db.Raw(`SELECT
			count(*) FILTER (WHERE kind = 'harvestend') AS finished,
			count(*) FILTER (WHERE kind = 'harvestend' AND error <> '') AS failed,
			count(*) FILTER (WHERE kind = 'harvestend' AND error = '' AND count = 0) AS unchanged,
			count(*) FILTER (WHERE kind = 'walk') AS walk_pages,
			coalesce(bool_or(kind = 'walk' AND error <> ''), false) AS walk_failed,
			coalesce(max(source) FILTER (WHERE kind = 'walk' AND source LIKE 'skipped: %'), '') AS skipped,
			min(ts) AS first, max(ts) AS last
		FROM activities WHERE request_id = ?`, requestID).Scan(&a).Error
	if err != nil {
		return a, fmt.Errorf("activity of job %s: %w", requestID, err)
	}
	return a, nil
}

// RunningJobs counts the jobs v may see that are not cancelled, were
// updated within a day and are unfinished as the scheduler's stall repair
// sees it (items finish with a harvestend row, whatever their extractors
// did), and of those the ones with no progress yet.
type RunningJobs struct {
	Running int64 `json:"running"`
	Pending int64 `json:"pending"`
}

// CountRunningJobs reads RunningJobs.
func CountRunningJobs(db *gorm.DB, v Viewer) (RunningJobs, error) {
	vis, vargs := v.VisibleSQL("j.location_id", "j.container_id")
	const running = "(NOT j.walk_complete OR j.enqueued_count > f.finished)"
	var jobs RunningJobs
	err := db.Raw(`SELECT
			count(*) FILTER (WHERE `+running+`) AS running,
			count(*) FILTER (WHERE `+running+` AND f.finished = 0 AND j.error_count = 0
				AND (j.walked_count = 0 OR j.item_id <> '')) AS pending
		FROM jobs j
		CROSS JOIN LATERAL (SELECT count(*) AS finished FROM activities a
			WHERE a.request_id = j.request_id AND a.kind = 'harvestend') f
		WHERE NOT j.cancelled AND j.updated > now() - interval '1 day' AND `+vis, vargs...).Scan(&jobs).Error
	if err != nil {
		return jobs, fmt.Errorf("count running jobs: %w", err)
	}
	return jobs, nil
}
