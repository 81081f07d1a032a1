package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
)

// Adult-content histograms of an item (the reference's adult summary),
// built from the NSFW scores its segments carry: summary.nsfw.nsfw_score
// (0 safe .. 1 unsafe) for the summary, summary.nsfw.categories.<name> for
// a category, as a classifier of the nsfwjs kind reports them (porn, sexy,
// hentai, drawing, neutral; extractors.SegmentNSFW). Each segment part is
// one score: bucket start_at = floor(time / interval) * interval seconds,
// avg and max of the scores in the bucket, buckets in time order, empty
// buckets left out. Without scores (no NSFW extractor ran, or it gave no
// categories) the list is empty: nothing is invented. Scores outside 0..1
// are not scores and are left out. interval is seconds per bucket,
// 1..3600, 10 when absent (DECISIONS.md); anything else is 400.

// adultCategories are the categories an NSFW classifier reports.
var adultCategories = []string{"porn", "sexy", "hentai", "drawing", "neutral"}

const (
	defaultAdultInterval = 10
	maxAdultInterval     = 3600
)

type adultBucketJSON struct {
	StartAt int64   `json:"start_at"`
	Avg     float64 `json:"avg"`
	Max     float64 `json:"max"`
}

func (s *Server) adultSummary(c *gin.Context) error {
	interval, err := queryInt(c, "interval", defaultAdultInterval, 1, maxAdultInterval)
	if err != nil {
		return err
	}
	it, err := s.loadVisibleItem(c, c.Param("id"))
	if err != nil {
		return err
	}
	buckets, err := s.adultBuckets(c, it.ID, interval, "")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"interval": interval, "adult_summary": buckets})
	return nil
}

func (s *Server) adultCategory(c *gin.Context) error {
	interval, err := queryInt(c, "interval", defaultAdultInterval, 1, maxAdultInterval)
	if err != nil {
		return err
	}
	category := strings.ToLower(c.Param("category"))
	if !slices.Contains(adultCategories, category) {
		return apperr.InvalidField("category", "must be one of "+strings.Join(adultCategories, ", "))
	}
	it, err := s.loadVisibleItem(c, c.Param("id"))
	if err != nil {
		return err
	}
	buckets, err := s.adultBuckets(c, it.ID, interval, category)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"category": category, "interval": interval, "adult_summary": buckets})
	return nil
}

// adultBuckets sums the scores of an item's segments up by interval: the
// nsfw_score, or a category's score when category is not empty.
func (s *Server) adultBuckets(c *gin.Context, itemID string, interval int, category string) ([]adultBucketJSON, error) {
	rows, err := store.AdultBuckets(s.db(c), itemID, interval, category)
	if err != nil {
		return nil, err
	}
	out := make([]adultBucketJSON, len(rows))
	for i, r := range rows {
		out[i] = adultBucketJSON{StartAt: r.StartAt, Avg: r.Avg, Max: r.Max}
	}
	return out, nil
}
