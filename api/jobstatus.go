package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/api/query"
	"github.com/metaharvest/metaharvest/models"
)

// The status of a harvest job, for a client watching it (GET
// /api/control/harvest/{request_id} and its activity twin GET
// /api/data/v3/activity/request/{request_id}), derived from the job row and
// its activity rows: what the workers wrote is the truth.

// Job states.
const (
	jobQueued     = "queued"     // no worker has reported on it yet
	jobWalking    = "walking"    // listing the container
	jobHarvesting = "harvesting" // listed; items still running
	jobDone       = "done"       // every item enqueued has finished (or the job was skipped)
	jobCancelled  = "cancelled"  // cancelled; tasks not yet started do nothing
	jobFailed     = "failed"     // the walk could not list the container (see its walk activity)
)

type jobCountsJSON struct {
	Walked    int64 `json:"walked"`    // files the walk listed (1 for an item job)
	Enqueued  int64 `json:"enqueued"`  // files sent to harvest (new or changed, or all with force)
	Harvested int64 `json:"harvested"` // finished without error
	Failed    int64 `json:"failed"`    // finished with an error (an extractor failed or was not available, the file vanished)
	Skipped   int64 `json:"skipped"`   // listed but unchanged since their last harvest
}

type jobStatusJSON struct {
	RequestID   string        `json:"request_id"`
	JobType     string        `json:"job_type"`
	State       string        `json:"state"`
	Skipped     string        `json:"skipped"` // why the job did nothing ("recently_walked"); "" otherwise
	LocationID  string        `json:"location_id"`
	ContainerID string        `json:"container_id"`
	ItemID      string        `json:"item_id"`
	UserID      string        `json:"user_id"`
	ProfileID   string        `json:"profile_id"`
	Extractors  []string      `json:"extractors"`
	Priority    int           `json:"priority"`
	Counts      jobCountsJSON `json:"counts"`
	Created     time.Time     `json:"created"`
	Updated     time.Time     `json:"updated"`
	StartedAt   *time.Time    `json:"started_at"`  // first activity; null while queued
	FinishedAt  *time.Time    `json:"finished_at"` // null until done, cancelled or failed
}

// GET /api/control/harvest/{id}
func (s *Server) harvestStatus(c *gin.Context) error { return s.jobStatus(c, c.Param("id")) }

// GET /api/data/v3/activity/request/{request_id}
func (s *Server) requestStatus(c *gin.Context) error { return s.jobStatus(c, c.Param("request_id")) }

func (s *Server) jobStatus(c *gin.Context, requestID string) error {
	job, err := s.loadJob(c, requestID)
	if err != nil {
		return err
	}
	a, err := s.jobActivityOf(c, job.RequestID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, jobStatusOut(job, a))
	return nil
}

// jobActivityOf reads what the activity rows of a job say about it.
func (s *Server) jobActivityOf(c *gin.Context, requestID string) (query.JobActivity, error) {
	return query.ReadJobActivity(s.db(c), requestID)
}

func jobStatusOut(job models.Job, a query.JobActivity) jobStatusJSON {
	out := jobStatusJSON{RequestID: job.RequestID, JobType: job.JobType, LocationID: job.LocationID,
		ContainerID: job.ContainerID, ItemID: job.ItemID, UserID: job.UserID, ProfileID: job.ProfileID,
		Extractors: []string(job.Extractors), Priority: job.Priority,
		Skipped: strings.TrimPrefix(a.Skipped, "skipped: "),
		Created: job.Created.UTC(), Updated: job.Updated.UTC()}
	if out.Extractors == nil {
		out.Extractors = []string{}
	}
	out.Counts = jobCountsJSON{Walked: job.WalkedCount, Enqueued: job.EnqueuedCount,
		Harvested: a.Finished - a.Failed - a.Unchanged, Failed: a.Failed, Skipped: a.Unchanged}
	if job.ItemID == "" && job.WalkedCount > job.EnqueuedCount {
		out.Counts.Skipped += job.WalkedCount - job.EnqueuedCount // the walk found them unchanged
	}
	switch {
	case job.Cancelled:
		out.State = jobCancelled
	case !job.WalkComplete && a.WalkPages == 0:
		out.State = jobQueued
	case !job.WalkComplete:
		out.State = jobWalking
	case a.Finished < job.EnqueuedCount && a.Finished == 0 && job.ItemID != "":
		out.State = jobQueued
	case a.Finished < job.EnqueuedCount:
		out.State = jobHarvesting
	case a.WalkFailed:
		out.State = jobFailed
	default:
		out.State = jobDone
	}
	if a.First != nil {
		t := a.First.UTC()
		out.StartedAt = &t
	}
	switch out.State {
	case jobDone, jobFailed:
		t := out.Updated
		if a.Last != nil {
			t = a.Last.UTC()
		}
		out.FinishedAt = &t
	case jobCancelled:
		t := out.Updated
		out.FinishedAt = &t
	}
	return out
}
