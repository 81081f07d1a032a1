package api

import (
	"database/sql"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"
)

type locationInsightJSON struct {
	LocationID string `json:"location_id"`
	Name       string `json:"name"`
	Count      int64  `json:"count"`
	Size       int64  `json:"size"`
}

type harvestInsightJSON struct {
	JobsLast24h   int64     `json:"jobs_last_24h"`
	ErrorsLast24h int64     `json:"errors_last_24h"`
	LastHarvest   time.Time `json:"last_harvest"`
}

type extractorErrorsJSON struct {
	Name      string `json:"name"`
	NumErrors int64  `json:"num_errors"`
}

// topExtractorErrorsMax is how many extractors top_extractor_errors lists.
const topExtractorErrorsMax = 10

// GET /api/data/v3/insights: an overview of what the caller may see, read
// in one snapshot so its numbers agree with each other.
//
//   - total_files, total_size, by_type: visible live items.
//   - by_location: every visible location with its visible live items
//     (containers hidden from the caller left out), most files first.
//   - harvest.jobs_last_24h: visible jobs created in the last 24 hours;
//     harvest.errors_last_24h: failed walks, downloads and extractor runs
//     recorded in that time; harvest.last_harvest: latest harvest of any
//     visible item, deleted ones included; the zero timestamp when none (as
//     in the data summary).
//   - top_extractor_errors: extractors whose latest run failed on the most
//     visible live items.
func (s *Server) insights(c *gin.Context) error {
	visItem, itemArgs, err := s.visibleSQL(c, "i.location_id", "i.container_id")
	if err != nil {
		return err
	}
	visLoc, locArgs, err := s.visibleSQL(c, "l.id", "")
	if err != nil {
		return err
	}
	visJob, jobArgs, err := s.visibleSQL(c, "j.location_id", "j.container_id")
	if err != nil {
		return err
	}
	visAct, actArgs, err := s.visibleSQL(c, "a.location_id", "a.container_id")
	if err != nil {
		return err
	}
	var (
		types    []typeCountJSON
		locs     []locationInsightJSON
		harvest  harvestInsightJSON
		topErrs  []extractorErrorsJSON
		snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	)
	err = s.db(c).Transaction(func(tx *gorm.DB) error {
		var err error
		if types, err = s.typeCounts(c, tx); err != nil {
			return err
		}
		if err := tx.Raw(`SELECT l.id AS location_id, l.name, count(i.id) AS count, COALESCE(sum(i.size), 0)::bigint AS size
			FROM locations l
			LEFT JOIN items i ON i.location_id = l.id AND i.deleted_at IS NULL AND `+visItem+`
			WHERE `+visLoc+`
			GROUP BY l.id, l.name
			ORDER BY count(i.id) DESC, COALESCE(sum(i.size), 0) DESC, lower(l.name), l.id`,
			append(append([]any{}, itemArgs...), locArgs...)...).Scan(&locs).Error; err != nil {
			return err
		}
		var last sql.NullTime
		if err := tx.Raw(`SELECT
				(SELECT count(*) FROM jobs j WHERE j.created > now() - interval '24 hours' AND `+visJob+`) AS jobs,
				(SELECT count(*) FROM activities a WHERE a.ts > now() - interval '24 hours' AND a.error <> ''
					AND a.kind <> 'harvestend' AND `+visAct+`) AS errors,
				(SELECT max(i.last_harvested) FROM items i WHERE `+visItem+`) AS last`,
			append(append(append([]any{}, jobArgs...), actArgs...), itemArgs...)...).
			Row().Scan(&harvest.JobsLast24h, &harvest.ErrorsLast24h, &last); err != nil {
			return err
		}
		if last.Valid {
			harvest.LastHarvest = last.Time.UTC()
		}
		return tx.Raw(`SELECT r.key AS name, count(*) AS num_errors
			FROM items i, jsonb_each(i.results) r
			WHERE r.value->>'error' <> '' AND i.deleted_at IS NULL AND `+visItem+`
			GROUP BY r.key
			ORDER BY count(*) DESC, r.key
			LIMIT ?`, append(append([]any{}, itemArgs...), topExtractorErrorsMax)...).Scan(&topErrs).Error
	}, snapshot)
	if err != nil {
		return err
	}
	var files, size int64
	for _, t := range types {
		files += t.Count
		size += t.Size
	}
	if locs == nil {
		locs = []locationInsightJSON{}
	}
	if topErrs == nil {
		topErrs = []extractorErrorsJSON{}
	}
	c.JSON(http.StatusOK, gin.H{
		"total_files":          files,
		"total_size":           size,
		"by_type":              types,
		"by_location":          locs,
		"harvest":              harvest,
		"top_extractor_errors": topErrs,
	})
	return nil
}
