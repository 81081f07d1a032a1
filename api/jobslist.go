package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
)

// GET /api/control/harvest?state=running|all&limit=N: the caller's visible
// harvest jobs, newest first, each as GET /api/control/harvest/{id} shows
// it. running (the default) lists the jobs not cancelled, updated within a
// day, whose walk is not complete or whose enqueued files have not all
// finished: what GET /api/control/system/stats counts as running.
func (s *Server) listJobs(c *gin.Context) error {
	state := c.DefaultQuery("state", "running")
	if state != "running" && state != "all" {
		return apperr.InvalidField("state", "must be running or all")
	}
	limit, err := queryInt(c, "limit", 50, 1, 500)
	if err != nil {
		return err
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.ListJobs(s.db(c), v, state == "running", limit)
	if err != nil {
		return err
	}
	out := make([]jobStatusJSON, 0, len(rows))
	for _, j := range rows {
		a, err := s.jobActivityOf(c, j.RequestID)
		if err != nil {
			return err
		}
		out = append(out, jobStatusOut(j, a))
	}
	c.JSON(http.StatusOK, gin.H{"jobs": out, "state": state})
	return nil
}
