package api

import (
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Harvest job reports, read from the activities rows the workers write.
//
// Visibility: a job is visible when its location and container are; an item
// when its location and container are. Addressing an invisible job or item
// by id answers 403 (its existence is not secret, its report is); the bulk
// endpoint, which takes many ids, answers an invisible job like an unknown
// one (empty extractors), so one invisible id does not fail the batch.

// Page sizes of the Limits table.
const (
	activityDefLimit     = 10
	activityMaxLimit     = 100  // jobs of an item; activities of item and request
	requestItemsMaxLimit = 1000 // items of a request
	bulkMaxJobs          = 1000
)

var md5Hex = regexp.MustCompile(`^[0-9a-f]{32}$`)

type activityJobJSON struct {
	RequestID    string    `json:"request_id"`
	ContainerID  string    `json:"container_id"`
	UserID       string    `json:"user_id"`
	WalkedCount  int64     `json:"walked_count"`
	IndexedCount int64     `json:"indexed_count"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	JobType      string    `json:"job_type"`
	Cancelled    bool      `json:"cancelled"`
	WalkComplete bool      `json:"walk_complete"`
	ErrorCount   int64     `json:"error_count"`
}

func activityJobOut(j models.Job) activityJobJSON {
	return activityJobJSON{RequestID: j.RequestID, ContainerID: j.ContainerID, UserID: j.UserID,
		WalkedCount: j.WalkedCount, IndexedCount: j.IndexedCount, Created: j.Created.UTC(), Updated: j.Updated.UTC(),
		JobType: j.JobType, Cancelled: j.Cancelled, WalkComplete: j.WalkComplete, ErrorCount: j.ErrorCount}
}

type activityJSON struct {
	TS          time.Time `json:"ts"`
	Kind        string    `json:"kind"`
	RequestID   string    `json:"request_id"`
	LocationID  string    `json:"location_id"`
	ContainerID string    `json:"container_id"`
	HarvestID   string    `json:"harvest_id"`
	ProfileID   string    `json:"profile_id"`
	Extractors  []string  `json:"extractors"`
	Name        string    `json:"name"`
	Source      string    `json:"source"`
	ItemID      string    `json:"item_id"`
	Count       int64     `json:"count"`
	Bytes       int64     `json:"bytes"`
	Error       string    `json:"error"`
	ErrorHash   string    `json:"error_hash"`
	Duration    int64     `json:"duration"` // milliseconds
}

func activityOut(a models.Activity) activityJSON {
	ex := []string(a.Extractors)
	if ex == nil {
		ex = []string{}
	}
	return activityJSON{TS: a.TS.UTC(), Kind: a.Kind, RequestID: a.RequestID, LocationID: a.LocationID,
		ContainerID: a.ContainerID, HarvestID: a.HarvestID, ProfileID: a.ProfileID, Extractors: ex, Name: a.Name,
		Source: a.Source, ItemID: a.ItemID, Count: a.Count, Bytes: a.Bytes, Error: a.Error, ErrorHash: a.ErrorHash,
		Duration: a.Duration}
}

// extractorSummaryJSON is one extractor that ran in a job (or on an item in
// a job) with the number of its runs that failed.
type extractorSummaryJSON struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	NumErrors   int64  `json:"num_errors"`
}

// displayName is the registry's display name of an extractor; a name the
// registry no longer knows (rows written by an older release) shows as is.
func (s *Server) displayName(name string) string {
	if info, ok := s.Extractors.Get(name); ok && info.DisplayName != "" {
		return info.DisplayName
	}
	return name
}

// loadJob finds the job of a request id: 404 when unknown, 403 when the
// caller may not see its location or container.
func (s *Server) loadJob(c *gin.Context, requestID string) (models.Job, error) {
	j, err := store.Job(s.db(c), requestID)
	if err != nil {
		return j, err
	}
	return j, s.checkVisible(c, j.LocationID, j.ContainerID)
}

// loadActivityItem finds an item, soft-deleted ones included (their history
// stays readable): 404 when unknown, 403 when not visible.
func (s *Server) loadActivityItem(c *gin.Context, itemID string) (models.Item, error) {
	it, err := store.ActivityItem(s.db(c), itemID)
	if err != nil {
		return it, err
	}
	return it, s.checkVisible(c, it.LocationID, it.ContainerID)
}

// checkExtractorName answers 404 for an extractor the registry does not
// know and that has no rows under cond (a registered extractor that did not
// run has an empty report).
func (s *Server) checkExtractorName(c *gin.Context, name, cond string, args ...any) error {
	if _, ok := s.Extractors.Get(name); ok {
		return nil
	}
	ran, err := store.ExtractorRan(s.db(c), name, cond, args...)
	if err != nil {
		return err
	}
	if !ran {
		return apperr.NotFound("extractor", name)
	}
	return nil
}

// extractorCounts summarises the extractor rows matching cond by extractor.
func (s *Server) extractorCounts(c *gin.Context, cond string, args ...any) ([]extractorSummaryJSON, error) {
	rows, err := store.ExtractorCounts(s.db(c), cond, args...)
	if err != nil {
		return nil, err
	}
	out := make([]extractorSummaryJSON, len(rows))
	for i, r := range rows {
		out[i] = extractorSummaryJSON{Name: r.Name, DisplayName: s.displayName(r.Name), NumErrors: r.NumErrors}
	}
	return out, nil
}

// pageJSON renders a token page: the list under key, the total under
// countKey, and the tokens.
func pageJSON(c *gin.Context, p Page, total int64, key string, list any, countKey string, extra gin.H) {
	next, prev := p.Tokens(total)
	body := gin.H{key: list, "next_page_token": next, "previous_page_token": prev}
	if countKey != "" {
		body[countKey] = total
	}
	for k, v := range extra {
		body[k] = v
	}
	c.JSON(http.StatusOK, body)
}

// GET /api/data/v3/activity/request/{request_id}/extractors
func (s *Server) requestExtractors(c *gin.Context) error {
	j, err := s.loadJob(c, c.Param("request_id"))
	if err != nil {
		return err
	}
	out, err := s.extractorCounts(c, "request_id = ?", j.RequestID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"extractors": out})
	return nil
}

// GET /api/data/v3/activity/request/{request_id}/extractors/{extractor}:
// the job's distinct errors of one extractor, most files first.
func (s *Server) requestExtractorErrors(c *gin.Context) error {
	j, err := s.loadJob(c, c.Param("request_id"))
	if err != nil {
		return err
	}
	name := c.Param("extractor")
	if err := s.checkExtractorName(c, name, "request_id = ?", j.RequestID); err != nil {
		return err
	}
	p, err := tokenPage(c, activityDefLimit, activityMaxLimit)
	if err != nil {
		return err
	}
	rows, total, err := store.JobExtractorErrors(s.db(c), j.RequestID, name, store.Page(p))
	if err != nil {
		return err
	}
	pageJSON(c, p, total, "errors", rows, "", gin.H{"extractor": name, "extractor_name": s.displayName(name)})
	return nil
}

// GET /api/data/v3/activity/request/{request_id}/extractors/{extractor}/errors/{error_md5}/files
func (s *Server) requestErrorFiles(c *gin.Context) error {
	j, err := s.loadJob(c, c.Param("request_id"))
	if err != nil {
		return err
	}
	name := c.Param("extractor")
	if err := s.checkExtractorName(c, name, "request_id = ?", j.RequestID); err != nil {
		return err
	}
	hash := strings.ToLower(c.Param("error_md5"))
	if !md5Hex.MatchString(hash) {
		return apperr.InvalidField("error_hash", "must be the 32 hex digits of an MD5 hash")
	}
	p, err := tokenPage(c, activityDefLimit, activityMaxLimit)
	if err != nil {
		return err
	}
	files, total, err := store.JobErrorFiles(s.db(c), j.RequestID, name, hash, store.Page(p))
	if err != nil {
		return err
	}
	if total == 0 {
		return apperr.NotFound("error", hash)
	}
	pageJSON(c, p, total, "files", files, "num_files", nil)
	return nil
}

// GET /api/data/v3/activity/request/{request_id}/items: the items the job
// harvested (its harvestend rows), in the order they finished.
func (s *Server) requestItems(c *gin.Context) error {
	j, err := s.loadJob(c, c.Param("request_id"))
	if err != nil {
		return err
	}
	p, err := tokenPage(c, activityDefLimit, requestItemsMaxLimit)
	if err != nil {
		return err
	}
	files, total, err := store.JobItems(s.db(c), j.RequestID, store.Page(p))
	if err != nil {
		return err
	}
	pageJSON(c, p, total, "files", files, "num_files", nil)
	return nil
}

// POST /api/data/v3/activity/bulk/extractors
func (s *Server) bulkRequestExtractors(c *gin.Context) error {
	var req struct {
		Jobs []string `json:"jobs"`
	}
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	switch {
	case req.Jobs == nil:
		return apperr.InvalidField("jobs", "is required")
	case len(req.Jobs) > bulkMaxJobs:
		return apperr.InvalidField("jobs", "at most 1000 request ids")
	}
	type entry struct {
		RequestID  string                 `json:"request_id"`
		Extractors []extractorSummaryJSON `json:"extractors"`
	}
	out := make([]entry, len(req.Jobs))
	for i, id := range req.Jobs {
		out[i] = entry{RequestID: id, Extractors: []extractorSummaryJSON{}}
	}
	if len(req.Jobs) == 0 {
		c.JSON(http.StatusOK, out)
		return nil
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.JobsExtractorCounts(s.db(c), v, req.Jobs)
	if err != nil {
		return err
	}
	byJob := map[string][]extractorSummaryJSON{}
	for _, r := range rows {
		byJob[r.RequestID] = append(byJob[r.RequestID], extractorSummaryJSON{Name: r.Name,
			DisplayName: s.displayName(r.Name), NumErrors: r.NumErrors})
	}
	for i := range out {
		if ex, ok := byJob[out[i].RequestID]; ok {
			out[i].Extractors = ex
		}
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// GET /api/data/v3/activity/item/{item_id}: the jobs that touched the item
// (its activity rows, or a single-item job not yet run), newest first.
func (s *Server) itemJobs(c *gin.Context) error {
	it, err := s.loadActivityItem(c, c.Param("item_id"))
	if err != nil {
		return err
	}
	p, err := tokenPage(c, activityDefLimit, activityMaxLimit)
	if err != nil {
		return err
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, total, err := store.ItemJobs(s.db(c), v, it, store.Page(p))
	if err != nil {
		return err
	}
	jobs := make([]activityJobJSON, len(rows))
	for i, j := range rows {
		jobs[i] = activityJobOut(j)
	}
	pageJSON(c, p, total, "jobs", jobs, "num_jobs", nil)
	return nil
}

// GET /api/data/v3/activity/item/{item_id}/{request_id}: the item's
// activity rows in the job, in time order.
func (s *Server) itemActivities(c *gin.Context) error {
	it, j, err := s.loadItemAndJob(c)
	if err != nil {
		return err
	}
	p, err := tokenPage(c, activityDefLimit, activityMaxLimit)
	if err != nil {
		return err
	}
	rows, total, err := store.ItemActivities(s.db(c), it.ID, j.RequestID, store.Page(p))
	if err != nil {
		return err
	}
	acts := make([]activityJSON, len(rows))
	for i, a := range rows {
		acts[i] = activityOut(a)
	}
	pageJSON(c, p, total, "activities", acts, "num_activities", nil)
	return nil
}

func (s *Server) loadItemAndJob(c *gin.Context) (models.Item, models.Job, error) {
	it, err := s.loadActivityItem(c, c.Param("item_id"))
	if err != nil {
		return it, models.Job{}, err
	}
	j, err := s.loadJob(c, c.Param("request_id"))
	return it, j, err
}

// GET /api/data/v3/activity/item/{item_id}/{request_id}/extractors
func (s *Server) itemExtractors(c *gin.Context) error {
	it, j, err := s.loadItemAndJob(c)
	if err != nil {
		return err
	}
	out, err := s.extractorCounts(c, "item_id = ? AND request_id = ?", it.ID, j.RequestID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"extractors": out})
	return nil
}

// GET /api/data/v3/activity/item/{item_id}/{request_id}/extractors/{extractor}:
// the distinct errors of one extractor on the item in the job, first seen first.
func (s *Server) itemExtractorErrors(c *gin.Context) error {
	it, j, err := s.loadItemAndJob(c)
	if err != nil {
		return err
	}
	name := c.Param("extractor")
	if err := s.checkExtractorName(c, name, "item_id = ? AND request_id = ?", it.ID, j.RequestID); err != nil {
		return err
	}
	rows, err := store.ItemExtractorErrors(s.db(c), it.ID, j.RequestID, name)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"extractor": name, "extractor_name": s.displayName(name), "errors": rows})
	return nil
}
