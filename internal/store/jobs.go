package store

import (
	"fmt"
	"strings"
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
		FROM activities a WHERE request_id = ? AND `+allKinds("a"), requestID).Scan(&a).Error
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

// Job states, as clients watching a job see them (JobStatusOf).
const (
	JobQueued     = "queued"     // no worker has reported on it yet
	JobWalking    = "walking"    // listing the container
	JobHarvesting = "harvesting" // listed; items still running
	JobDone       = "done"       // every item enqueued has finished (or the job was skipped)
	JobCancelled  = "cancelled"  // cancelled; tasks not yet started do nothing
	JobFailed     = "failed"     // the walk could not list the container (see its walk activity)
)

// JobCounts are a job's file counts.
type JobCounts struct {
	Walked    int64 // files the walk listed (1 for an item job)
	Enqueued  int64 // files sent to harvest (new or changed, or all with force)
	Harvested int64 // finished without error
	Failed    int64 // finished with an error (an extractor failed or was not available, the file vanished)
	Skipped   int64 // listed but unchanged since their last harvest
}

// JobStatus is the state of a job as its watchers see it: the api's
// GET /api/control/harvest/{id} and the web UI's jobs pages.
type JobStatus struct {
	State      string
	Skipped    string // why the job did nothing ("recently_walked"); "" otherwise
	Counts     JobCounts
	StartedAt  *time.Time // first activity; nil while queued
	FinishedAt *time.Time // nil until done, cancelled or failed
}

// Finished reports whether the job will change no more.
func (s JobStatus) Finished() bool {
	return s.State == JobDone || s.State == JobCancelled || s.State == JobFailed
}

// JobStatusOf derives a job's status from its row and what its activity
// rows say (ReadJobActivity): what the workers wrote is the truth.
func JobStatusOf(job models.Job, a JobActivity) JobStatus {
	out := JobStatus{Skipped: strings.TrimPrefix(a.Skipped, "skipped: ")}
	out.Counts = JobCounts{Walked: job.WalkedCount, Enqueued: job.EnqueuedCount,
		Harvested: a.Finished - a.Failed - a.Unchanged, Failed: a.Failed, Skipped: a.Unchanged}
	if job.ItemID == "" && job.WalkedCount > job.EnqueuedCount {
		out.Counts.Skipped += job.WalkedCount - job.EnqueuedCount // the walk found them unchanged
	}
	switch {
	case job.Cancelled:
		out.State = JobCancelled
	case !job.WalkComplete && a.WalkPages == 0:
		out.State = JobQueued
	case !job.WalkComplete:
		out.State = JobWalking
	case a.Finished < job.EnqueuedCount && a.Finished == 0 && job.ItemID != "":
		out.State = JobQueued
	case a.Finished < job.EnqueuedCount:
		out.State = JobHarvesting
	case a.WalkFailed:
		out.State = JobFailed
	default:
		out.State = JobDone
	}
	if a.First != nil {
		t := a.First.UTC()
		out.StartedAt = &t
	}
	switch out.State {
	case JobDone, JobFailed:
		t := job.Updated.UTC()
		if a.Last != nil {
			t = a.Last.UTC()
		}
		out.FinishedAt = &t
	case JobCancelled:
		t := job.Updated.UTC()
		out.FinishedAt = &t
	}
	return out
}

// HarvestTargets lists the containers v may see, by location and name:
// what a harvest may be started on.
func HarvestTargets(db *gorm.DB, v Viewer) ([]models.Container, error) {
	cond, args := v.VisibleSQL("containers.location_id", "containers.id")
	var rows []models.Container
	if err := db.Where(cond, args...).Order("location_id, lower(name), id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	return rows, nil
}
