package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/store"
)

type harvestRequest struct {
	LocationID           string   `json:"location_id"`
	ItemID               string   `json:"item_id"`
	ContainerID          string   `json:"container_id"`
	Extractors           []string `json:"extractors"`
	ProfileID            string   `json:"profile_id"`
	OverrideExtractors   bool     `json:"override_extractors"`
	NewExtractorsOnly    bool     `json:"new_extractors_only"`
	Force                bool     `json:"force"`
	IgnoreRecentlyWalked bool     `json:"ignore_recently_walked"`
	Priority             int      `json:"priority"`
}

// startHarvest validates the request, records the job and enqueues its
// first task; progress is read from GET /api/control/harvest/{request_id}
// and the activity endpoints. A harvest that will do nothing (a container
// walked recently: jobs.RecentWalkWindow) says so in its 202 body.
func (s *Server) startHarvest(c *gin.Context) error {
	var req harvestRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	problems := map[string]string{}
	required(problems, map[string]string{"location_id": req.LocationID})
	if req.ItemID == "" && req.ContainerID == "" {
		problems["container_id"] = "give item_id or container_id"
	}
	if req.ItemID != "" && req.ContainerID != "" {
		problems["item_id"] = "give item_id or container_id, not both"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	p := principalOf(c)
	if err := s.checkVisible(c, req.LocationID, ""); err != nil {
		return err
	}
	if req.ContainerID != "" {
		if err := s.checkVisible(c, req.LocationID, req.ContainerID); err != nil {
			var ae *apperr.Error
			if errors.As(err, &ae) && ae.Status == http.StatusForbidden {
				// unknown containers answer 404 below, from the starter
				exists, qerr := store.ContainerExists(s.db(c), req.ContainerID)
				if qerr != nil {
					return qerr
				}
				if exists {
					return err
				}
			} else {
				return err
			}
		}
	}
	started, err := s.jobs.StartJob(c.Request.Context(), jobs.Spec{
		UserID: p.User.ID, LocationID: req.LocationID, ContainerID: req.ContainerID, ItemID: req.ItemID,
		Extractors: req.Extractors, ProfileID: req.ProfileID, OverrideExtractors: req.OverrideExtractors,
		NewExtractorsOnly: req.NewExtractorsOnly, Force: req.Force, IgnoreRecentlyWalked: req.IgnoreRecentlyWalked,
		Priority: req.Priority,
	})
	if err != nil {
		return err
	}
	target := req.ContainerID
	if req.ItemID != "" {
		target = req.ItemID
	}
	if err := record(s.db(c), p, "harvest", "start", started.RequestID, target); err != nil {
		return err
	}
	body := gin.H{"request_id": started.RequestID, "status_url": "/api/control/harvest/" + started.RequestID}
	if started.Skipped != "" {
		body["skipped"] = started.Skipped
		body["message"] = fmt.Sprintf("the container was walked, or its last harvest was still running or finished, "+
			"less than %d seconds ago, so nothing was harvested; send ignore_recently_walked: true to walk it again",
			int(jobs.RecentWalkWindow.Seconds()))
	}
	c.JSON(http.StatusAccepted, body)
	return nil
}

// cancelHarvest marks the job cancelled: tasks not yet started skip their
// work; a task already running finishes its item.
func (s *Server) cancelHarvest(c *gin.Context) error {
	id := c.Param("id")
	job, err := store.Job(s.db(c), id)
	if err != nil {
		return err
	}
	if err := s.checkVisible(c, job.LocationID, job.ContainerID); err != nil {
		return err
	}
	err = s.audited(c, "harvest", "cancel", id, "", func(tx *store.DB) error {
		return store.CancelJob(tx, id)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"request_id": id, "cancelled": true})
	return nil
}
