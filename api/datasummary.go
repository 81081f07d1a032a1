package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// Data summary: counted from the items rows the caller may see.
//
//   - total_files, total_size: live items (deleted_at IS NULL).
//   - deleted_files: soft-deleted items.
//   - total_pages: per live item the page count of the pdf extractor or the
//     document_pages extractor (the larger when both ran, so one document is
//     counted once); a missing or non-numeric count is 0.
//   - video_runtime_seconds: mediainfo duration (seconds) of live items whose
//     mime type is audio/* or video/*.
//   - last_harvest: latest last_harvested of any item, deleted ones included
//     (the harvest happened); the zero timestamp when nothing was harvested.

// jsonNumberSQL is the numeric value of a jsonb text path expression, or
// NULL when the value is missing or not a plain non-negative number (so a
// malformed value never fails the query). Integer-valued when intOnly.
func jsonNumberSQL(expr string, intOnly bool) string {
	if intOnly {
		return "(CASE WHEN btrim(" + expr + ") ~ '^[0-9]{1,15}([.]0*){0,1}$' THEN trunc(btrim(" + expr + ")::numeric)::bigint END)"
	}
	return "(CASE WHEN btrim(" + expr + ") ~ '^[0-9]{1,15}([.][0-9]*){0,1}$' THEN btrim(" + expr + ")::double precision END)"
}

func (s *Server) dataSummary(c *gin.Context) error {
	vis, vargs, err := s.visibleSQL(c, "i.location_id", "i.container_id")
	if err != nil {
		return err
	}
	pages := "GREATEST(" + jsonNumberSQL("i.metadata->'pdf'->>'pages'", true) + ", " +
		jsonNumberSQL("i.metadata->'document_pages'->>'pages'", true) + ")"
	runtime := jsonNumberSQL("i.metadata->'mediainfo'->>'duration'", false)
	var row struct {
		TotalFiles          int64
		DeletedFiles        int64
		TotalPages          int64
		TotalSize           int64
		VideoRuntimeSeconds float64
		LastHarvest         *time.Time
	}
	err = s.DB.WithContext(c.Request.Context()).Raw(`SELECT
			count(*) FILTER (WHERE i.deleted_at IS NULL) AS total_files,
			count(*) FILTER (WHERE i.deleted_at IS NOT NULL) AS deleted_files,
			COALESCE(sum(`+pages+`) FILTER (WHERE i.deleted_at IS NULL), 0)::bigint AS total_pages,
			COALESCE(sum(i.size) FILTER (WHERE i.deleted_at IS NULL), 0)::bigint AS total_size,
			COALESCE(sum(`+runtime+`) FILTER (WHERE i.deleted_at IS NULL
				AND split_part(i.mime_type, '/', 1) IN ('audio', 'video')), 0)::double precision AS video_runtime_seconds,
			max(i.last_harvested) AS last_harvest
		FROM items i WHERE `+vis, vargs...).Scan(&row).Error
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
