package api

import (
	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
)

// The visibility rule (store.Viewer) is applied on the server by every
// list, item, artifact, activity and search answer.

// viewer is the caller as the queries of internal/store see it (a public route
// has no principal and reads as an administrator).
func (s *Server) viewer(c *gin.Context) (store.Viewer, error) {
	p := principalOf(c)
	if p == nil {
		return store.Viewer{Admin: true}, nil
	}
	return p.Viewer(c.Request.Context(), s.DB)
}

// checkVisible answers 403 when the caller may not see the location /
// container pair (ctrID may be empty for a location).
func (s *Server) checkVisible(c *gin.Context, locID, ctrID string) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	ok, err := v.Sees(s.db(c), locID, ctrID)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.Forbidden("this object is not visible to you")
	}
	return nil
}
