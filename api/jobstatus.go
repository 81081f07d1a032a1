package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// The status of a harvest job, for a client watching it (GET
// /api/control/harvest/{request_id} and its activity twin GET
// /api/data/v3/activity/request/{request_id}), derived from the job row and
// its activity rows (store.JobStatusOf): what the workers wrote is the truth.

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
func (s *Server) jobActivityOf(c *gin.Context, requestID string) (store.JobActivity, error) {
	return store.ReadJobActivity(s.db(c), requestID)
}

func jobStatusOut(job models.Job, a store.JobActivity) jobStatusJSON {
	st := store.JobStatusOf(job, a)
	out := jobStatusJSON{RequestID: job.RequestID, JobType: job.JobType, LocationID: job.LocationID,
		ContainerID: job.ContainerID, ItemID: job.ItemID, UserID: job.UserID, ProfileID: job.ProfileID,
		Extractors: []string(job.Extractors), Priority: job.Priority, State: st.State, Skipped: st.Skipped,
		Created: job.Created.UTC(), Updated: job.Updated.UTC(), StartedAt: st.StartedAt, FinishedAt: st.FinishedAt,
		Counts: jobCountsJSON(st.Counts)}
	if out.Extractors == nil {
		out.Extractors = []string{}
	}
	return out
}
