package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/extractors/shared/vision"
	"github.com/metaharvest/metaharvest/internal/config"
)

// providerKey publishes a configured provider key as the placeholder
// "<KEY>", never its value; an unconfigured key is the empty string.
func providerKey(v string) string {
	if v == "" {
		return ""
	}
	return "<KEY>"
}

// platformSummary reports the real settings of this deployment. This open
// source platform has no SaaS plan and no licence server: those fields carry
// documented neutral values (saas false, no checks, no expiry).
func (s *Server) platformSummary(c *gin.Context) error {
	cfg := s.Config
	patterns := cfg.UploadIgnorePatterns
	if patterns == nil {
		patterns = []string{}
	}
	c.JSON(http.StatusOK, gin.H{
		"harvest_refresh_time": int(cfg.HarvestRefreshTime / time.Second),
		"offering": gin.H{
			"base_url":                        cfg.BaseURL,
			"saas":                            false,
			"saas_details":                    gin.H{"max_items": 0, "plans": nil},
			"facial_recognition_enabled":      s.facialRecognition(),
			"experimental_extractors_enabled": false,
			"license": gin.H{
				"expiration":              time.Time{},
				"base_url":                cfg.BaseURL,
				"enforce_base_url_check":  false,
				"license_generated_at":    time.Time{},
				"license_generation_host": "",
				"remote_usage_enabled":    false,
				"license_checks_enabled":  false,
			},
			"uploadstore": gin.H{
				"enabled":         cfg.UploadEnabled,
				"limit_bytes":     cfg.UploadLimitBytes,
				"ignore_patterns": patterns,
			},
		},
		"password_length_minimum":          config.PasswordMin,
		"password_length_maximum":          config.PasswordMax,
		"maps_key":                         providerKey(cfg.MapsKey),
		"error_tracker_write_key_frontend": providerKey(cfg.ErrorTrackerWriteKeyFrontend),
		"analytics_write_key":              providerKey(cfg.AnalyticsWriteKey),
	})
	return nil
}

// facialRecognition says whether this platform describes the faces it
// finds (docs/vision.md): FACIAL_RECOGNITION is on, vendor_faces can run,
// and the vision sidecar that makes the descriptors is installed.
func (s *Server) facialRecognition() bool {
	if !s.Config.FacialRecognition {
		return false
	}
	if ok, _ := s.Extractors.Available("vendor_faces"); !ok {
		return false
	}
	_, err := vision.Installed(s.Extractors.Settings("vendor_faces")["dir"])
	return err == nil
}
