package api

import (
	"testing"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/models"
)

// collabEnv is a searchEnv with the ids of its items and a second user,
// not an administrator and not in the group "Secret", holding every
// collaboration scope.
type collabEnv struct {
	*searchEnv
	video, pdf, secret string // item ids: two public, one in the Secret location
	otherID, other     string // the second user's id and token
}

func newCollabEnv(t *testing.T) *collabEnv { return newCollabEnvWith(t) }

func newCollabEnvWith(t *testing.T, tweak ...func(*config.Config)) *collabEnv {
	se := newSearchEnvWith(t, tweak...)
	pub, sec := models.ContainerID("pub", "media"), models.ContainerID("sec", "media")
	ce := &collabEnv{searchEnv: se,
		video:  models.ItemID(pub, "trips/holiday_video.mp4"),
		pdf:    models.ItemID(pub, "docs/budget.pdf"),
		secret: models.ItemID(sec, "secret_plan.txt"),
	}
	ce.otherID, ce.other = se.userWithScopes("other@example.com", "items:read", "search:read",
		"compilations:read", "compilations:write", "comments:read", "comments:write",
		"fields:read", "fields:write", "fielddata:read", "fielddata:write", "logos:read", "logos:write")
	return ce
}
