package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
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
	vis, args, err := s.visibleSQL(c, "j.location_id", "j.container_id")
	if err != nil {
		return err
	}
	where := vis
	if state == "running" {
		where += ` AND NOT j.cancelled AND j.updated > now() - interval '1 day'
			AND (NOT j.walk_complete OR j.enqueued_count > (SELECT count(*) FROM activities a
				WHERE a.request_id = j.request_id AND a.kind = 'harvestend'))`
	}
	var rows []models.Job
	if err := s.DB.WithContext(c.Request.Context()).Raw(`SELECT j.* FROM jobs j WHERE `+where+
		` ORDER BY j.created DESC, j.request_id LIMIT ?`, append(args, limit)...).Scan(&rows).Error; err != nil {
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
