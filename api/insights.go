package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/store"
)

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
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	in, err := store.ReadInsights(s.db(c), v, topExtractorErrorsMax)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{
		"total_files":          in.TotalFiles,
		"total_size":           in.TotalSize,
		"by_type":              in.Types,
		"by_location":          in.Locations,
		"harvest":              in.Harvest,
		"top_extractor_errors": in.TopErrors,
	})
	return nil
}
