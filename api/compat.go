package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/hibiken/asynq"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/storage"
)

// Endpoints kept for clients written for the original product: location
// kinds, feature switches and system statistics (the item overviews are in
// compat_items.go).

// GET /api/data/v3/location-kinds: the kinds a user can create, with their
// config fields. The upload store is built in (one per deployment), so it
// is not offered.
func (s *Server) locationKinds(c *gin.Context) error {
	all := storage.Kinds()
	out := make([]storage.KindInfo, 0, len(all))
	for _, k := range all {
		if k.Name == storage.KindUploadStore {
			continue
		}
		if k.Fields == nil {
			k.Fields = []storage.ConfigField{}
		}
		out = append(out, k)
	}
	c.JSON(http.StatusOK, gin.H{"location_kinds": out})
	return nil
}

// Feature switches. Each is the settings row "feature:<name>" holding
// "true" or "false"; no row means off. disabled_live_harvesting, when on,
// stops the scheduler from starting live harvests (scheduler.Plan reads the
// same row); manual harvests are not affected.
var featureNames = []string{"disabled_live_harvesting"}

func featureKey(name string) string { return "feature:" + name }

func knownFeature(name string) bool {
	for _, n := range featureNames {
		if n == name {
			return true
		}
	}
	return false
}

type featureJSON struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
}

// GET /api/data/features
func (s *Server) listFeatures(c *gin.Context) error {
	keys := make([]string, len(featureNames))
	for i, n := range featureNames {
		keys[i] = featureKey(n)
	}
	var rows []struct{ Key, Value string }
	if err := s.DB.WithContext(c.Request.Context()).Table("settings").Select("key, value").
		Where("key IN ?", keys).Scan(&rows).Error; err != nil {
		return err
	}
	on := map[string]bool{}
	for _, r := range rows {
		on[r.Key] = r.Value == "true"
	}
	out := make([]featureJSON, len(featureNames))
	for i, n := range featureNames {
		out[i] = featureJSON{Name: n, Enabled: on[featureKey(n)]}
	}
	c.JSON(http.StatusOK, gin.H{"features": out})
	return nil
}

// PUT /api/data/features/{name} {enabled}: 404 for a feature this platform
// does not have. Every call is audited, like extractor switches.
func (s *Server) putFeature(c *gin.Context) error {
	name := c.Param("name")
	if !knownFeature(name) {
		return apperr.NotFound("feature", name)
	}
	var req struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	if req.Enabled == nil {
		return apperr.InvalidField("enabled", "is required")
	}
	on := *req.Enabled
	action := "disable"
	if on {
		action = "enable"
	}
	err := s.audited(c, "feature", action, name, "", func(tx *gorm.DB) error {
		if err := tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, featureKey(name), strconv.FormatBool(on)).Error; err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, featureJSON{Name: name, Enabled: on})
	return nil
}

type queueStatsJSON struct {
	Name      string `json:"name"`
	Pending   int    `json:"pending"`
	Active    int    `json:"active"`
	Scheduled int    `json:"scheduled"`
	Retry     int    `json:"retry"`
	Archived  int    `json:"archived"`
	Completed int    `json:"completed"`
}

// GET /api/control/system/stats: task counts of this deployment's queues
// (named without the Redis namespace), harvest jobs in progress, and the
// number of worker processes serving these queues.
//
// Jobs counted are visible to the caller, not cancelled and updated within
// a day (a job whose tasks were lost stops counting then, unless the
// scheduler repairs it). running: the walk is not complete or fewer items
// finished (harvestend rows) than were enqueued. pending: those of the
// running jobs with no progress yet, waiting for a worker.
func (s *Server) systemStats(c *gin.Context) error {
	opt, err := queue.RedisOpt(s.Config.RedisURL)
	if err != nil {
		return err
	}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	// asynq knows a queue once a task was enqueued on it; the others are empty.
	known, err := insp.Queues()
	if err != nil {
		return fmt.Errorf("list queues: %w", err)
	}
	exists := map[string]bool{}
	for _, q := range known {
		exists[q] = true
	}
	names := s.queues.All()
	ours := map[string]bool{}
	queues := make([]queueStatsJSON, 0, len(names))
	for _, q := range names {
		ours[q] = true
		st := queueStatsJSON{Name: s.shortQueueName(q)}
		if exists[q] {
			info, err := insp.GetQueueInfo(q)
			if err != nil {
				return fmt.Errorf("queue %s: %w", q, err)
			}
			st.Pending, st.Active, st.Scheduled = info.Pending, info.Active, info.Scheduled
			st.Retry, st.Archived, st.Completed = info.Retry, info.Archived, info.Completed
		}
		queues = append(queues, st)
	}
	servers, err := insp.Servers()
	if err != nil {
		return fmt.Errorf("list workers: %w", err)
	}
	workers := 0
	for _, srv := range servers {
		for q := range srv.Queues {
			if ours[q] {
				workers++
				break
			}
		}
	}

	vis, vargs, err := s.visibleSQL(c, "j.location_id", "j.container_id")
	if err != nil {
		return err
	}
	// Unfinished as the scheduler's stall repair sees it: items finish with
	// a harvestend row, whatever their extractors did.
	const running = "(NOT j.walk_complete OR j.enqueued_count > f.finished)"
	var jobs struct {
		Running int64 `json:"running"`
		Pending int64 `json:"pending"`
	}
	err = s.DB.WithContext(c.Request.Context()).Raw(`SELECT
			count(*) FILTER (WHERE `+running+`) AS running,
			count(*) FILTER (WHERE `+running+` AND f.finished = 0 AND j.error_count = 0
				AND (j.walked_count = 0 OR j.item_id <> '')) AS pending
		FROM jobs j
		CROSS JOIN LATERAL (SELECT count(*) AS finished FROM activities a
			WHERE a.request_id = j.request_id AND a.kind = 'harvestend') f
		WHERE NOT j.cancelled AND j.updated > now() - interval '1 day' AND `+vis, vargs...).Scan(&jobs).Error
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"queues": queues, "jobs": jobs, "workers": workers})
	return nil
}

// shortQueueName drops the deployment's namespace: "ns:stage01" -> "stage01".
func (s *Server) shortQueueName(q string) string {
	if ns := s.queues.Namespace; ns != "" {
		return strings.TrimPrefix(q, ns+":")
	}
	return q
}
