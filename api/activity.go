package api

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
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

// errorHashSQL is the error hash of an activity row: the stored MD5, or the
// MD5 of the message when a writer left it empty.
const errorHashSQL = "COALESCE(NULLIF(error_hash, ''), md5(error))"

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

type activityFileJSON struct {
	ItemID string `json:"item_id"`
	Name   string `json:"name"`
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
	var j models.Job
	err := s.db(c).Where("request_id = ?", requestID).Take(&j).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return j, apperr.NotFound("harvest request", requestID)
	}
	if err != nil {
		return j, err
	}
	return j, s.checkVisible(c, j.LocationID, j.ContainerID)
}

// loadActivityItem finds an item, soft-deleted ones included (their history
// stays readable): 404 when unknown, 403 when not visible.
func (s *Server) loadActivityItem(c *gin.Context, itemID string) (models.Item, error) {
	var it models.Item
	err := s.db(c).Select("id", "location_id", "container_id", "name").
		Where("id = ?", itemID).Take(&it).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return it, apperr.NotFound("item", itemID)
	}
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
	var n int64
	err := s.db(c).Raw("SELECT count(*) FROM (SELECT 1 FROM activities WHERE kind = 'extractor' AND name = ? AND "+
		cond+" LIMIT 1) x", append([]any{name}, args...)...).Scan(&n).Error
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.NotFound("extractor", name)
	}
	return nil
}

// extractorCounts summarises the extractor rows matching cond by extractor.
func (s *Server) extractorCounts(c *gin.Context, cond string, args ...any) ([]extractorSummaryJSON, error) {
	var rows []struct {
		Name      string
		NumErrors int64
	}
	err := s.db(c).Raw(`SELECT name, count(*) FILTER (WHERE error <> '') AS num_errors
		FROM activities WHERE kind = 'extractor' AND `+cond+` GROUP BY name ORDER BY name`, args...).Scan(&rows).Error
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
	db := s.db(c)
	const from = ` FROM activities WHERE request_id = ? AND kind = 'extractor' AND name = ? AND error <> ''`
	var total int64
	if err := db.Raw(`SELECT count(DISTINCT `+errorHashSQL+`)`+from, j.RequestID, name).Scan(&total).Error; err != nil {
		return err
	}
	type errJSON struct {
		Error     string `json:"error"`
		ErrorHash string `json:"error_hash"`
		NumFiles  int64  `json:"num_files"`
	}
	rows := []errJSON{}
	err = db.Raw(`SELECT `+errorHashSQL+` AS error_hash, min(error) AS error, count(DISTINCT item_id) AS num_files`+from+
		` GROUP BY 1 ORDER BY num_files DESC, error_hash LIMIT ? OFFSET ?`, j.RequestID, name, p.Limit, p.Offset).
		Scan(&rows).Error
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
	db := s.db(c)
	const cond = `request_id = ? AND kind = 'extractor' AND name = ? AND error <> '' AND ` + errorHashSQL + ` = ?`
	var total int64
	if err := db.Raw(`SELECT count(DISTINCT item_id) FROM activities WHERE `+cond, j.RequestID, name, hash).Scan(&total).Error; err != nil {
		return err
	}
	if total == 0 {
		return apperr.NotFound("error", hash)
	}
	files, err := s.errorFiles(c, cond, []any{j.RequestID, name, hash}, j.RequestID, p)
	if err != nil {
		return err
	}
	pageJSON(c, p, total, "files", files, "num_files", nil)
	return nil
}

// errorFiles lists the distinct items of the rows matching cond, named by
// the item (or, for an item gone since, by the job's harvestend row), in
// name order.
func (s *Server) errorFiles(c *gin.Context, cond string, args []any, requestID string, p Page) ([]activityFileJSON, error) {
	files := []activityFileJSON{}
	q := `SELECT a.item_id, COALESCE(NULLIF(i.name, ''), (SELECT h.name FROM activities h
			WHERE h.item_id = a.item_id AND h.request_id = ? AND h.kind = 'harvestend' ORDER BY h.id LIMIT 1), '') AS name
		FROM (SELECT DISTINCT item_id FROM activities WHERE ` + cond + `) a
		LEFT JOIN items i ON i.id = a.item_id
		ORDER BY name, a.item_id LIMIT ? OFFSET ?`
	all := append(append([]any{requestID}, args...), p.Limit, p.Offset)
	err := s.db(c).Raw(q, all...).Scan(&files).Error
	return files, err
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
	db := s.db(c)
	const from = ` FROM activities WHERE request_id = ? AND kind = 'harvestend' AND item_id <> ''`
	var total int64
	if err := db.Raw(`SELECT count(DISTINCT item_id)`+from, j.RequestID).Scan(&total).Error; err != nil {
		return err
	}
	files := []activityFileJSON{}
	err = db.Raw(`SELECT item_id, min(name) AS name`+from+` GROUP BY item_id ORDER BY min(ts), min(id), item_id LIMIT ? OFFSET ?`,
		j.RequestID, p.Limit, p.Offset).Scan(&files).Error
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
	vis, vargs, err := s.visibleSQL(c, "j.location_id", "j.container_id")
	if err != nil {
		return err
	}
	var rows []struct {
		RequestID string
		Name      string
		NumErrors int64
	}
	err = s.db(c).Raw(`SELECT a.request_id, a.name, count(*) FILTER (WHERE a.error <> '') AS num_errors
		FROM activities a JOIN jobs j ON j.request_id = a.request_id
		WHERE a.kind = 'extractor' AND a.request_id = ANY(?) AND `+vis+`
		GROUP BY a.request_id, a.name ORDER BY a.request_id, a.name`,
		append([]any{stringsArg(req.Jobs)}, vargs...)...).Scan(&rows).Error
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
	vis, vargs, err := s.visibleSQL(c, "jobs.location_id", "jobs.container_id")
	if err != nil {
		return err
	}
	q := s.db(c).Model(&models.Job{}).
		Where("(request_id IN (SELECT request_id FROM activities WHERE item_id = ?) OR item_id = ?)", it.ID, it.ID).
		Where(vis, vargs...)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return err
	}
	var rows []models.Job
	if err := q.Order("created DESC, request_id DESC").Limit(p.Limit).Offset(p.Offset).Find(&rows).Error; err != nil {
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
	q := s.db(c).Model(&models.Activity{}).
		Where("item_id = ? AND request_id = ?", it.ID, j.RequestID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return err
	}
	var rows []models.Activity
	if err := q.Order("ts, id").Limit(p.Limit).Offset(p.Offset).Find(&rows).Error; err != nil {
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
	type errJSON struct {
		Error     string `json:"error"`
		ErrorHash string `json:"error_hash"`
	}
	rows := []errJSON{}
	err = s.db(c).Raw(`SELECT `+errorHashSQL+` AS error_hash, min(error) AS error
		FROM activities WHERE item_id = ? AND request_id = ? AND kind = 'extractor' AND name = ? AND error <> ''
		GROUP BY 1 ORDER BY min(ts), min(id)`, it.ID, j.RequestID, name).Scan(&rows).Error
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"extractor": name, "extractor_name": s.displayName(name), "errors": rows})
	return nil
}
