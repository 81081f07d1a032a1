package api

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
)

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
	values, err := store.Settings(s.db(c), keys)
	if err != nil {
		return err
	}
	out := make([]featureJSON, len(featureNames))
	for i, n := range featureNames {
		out[i] = featureJSON{Name: n, Enabled: values[featureKey(n)] == "true"}
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
	err := s.audited(c, "feature", action, name, "", func(tx *store.DB) error {
		return store.SetSetting(tx, featureKey(name), strconv.FormatBool(on))
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, featureJSON{Name: name, Enabled: on})
	return nil
}
