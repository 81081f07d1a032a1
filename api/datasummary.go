package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/store"
)

// Data summary: counted from the items rows the caller may see
// (store.DataSummary says what each count is); last_harvest is the zero
// timestamp when nothing was harvested.

func (s *Server) dataSummary(c *gin.Context) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	row, err := store.ReadDataSummary(s.db(c), v)
	if err != nil {
		return err
	}
	last := time.Time{}
	if row.LastHarvest != nil {
		last = row.LastHarvest.UTC()
	}
	c.JSON(http.StatusOK, gin.H{
		"total_files":           row.TotalFiles,
		"deleted_files":         row.DeletedFiles,
		"total_pages":           row.TotalPages,
		"total_size":            row.TotalSize,
		"video_runtime_seconds": row.VideoRuntimeSeconds,
		"last_harvest":          last,
	})
	return nil
}
