package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
)

func (s *Server) healthz(c *gin.Context) error {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
	return nil
}

// readyz answers 200 only when Postgres and Redis answer.
func (s *Server) readyz(c *gin.Context) error {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	checks := gin.H{}
	failed := map[string]string{}
	if sqlDB, err := s.DB.DB(); err != nil || sqlDB.PingContext(ctx) != nil {
		failed["postgres"] = "unreachable"
	} else {
		checks["postgres"] = "ok"
	}
	if err := s.Redis.Ping(ctx).Err(); err != nil {
		failed["redis"] = "unreachable"
	} else {
		checks["redis"] = "ok"
	}
	if len(failed) > 0 {
		e := apperr.Unavailable("a dependency is not ready")
		e.Fields = failed
		return e
	}
	c.JSON(http.StatusOK, gin.H{"status": "ok", "checks": checks})
	return nil
}
