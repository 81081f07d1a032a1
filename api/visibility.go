package api

import (
	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// Visibility rule: a caller sees a location (and so its containers and
// items) when the location has no groups or shares a group with the caller,
// and a container when, besides, the container has no groups or shares one.
// Administrators see everything. Every list, item, artifact, activity and
// search answer applies it on the server.

// visibleSQL returns a SQL condition restricting rows whose location id is
// in column locCol and container id in ctrCol (ctrCol may be empty for
// location rows) to what the caller may see.
func (s *Server) visibleSQL(c *gin.Context, locCol, ctrCol string) (string, []any, error) {
	p := principalOf(c)
	if p == nil || p.IsAdmin() {
		return "TRUE", nil, nil
	}
	groups, err := p.GroupIDs(c.Request.Context(), s.DB)
	if err != nil {
		return "", nil, err
	}
	if groups == nil {
		groups = []string{}
	}
	cond := "(NOT EXISTS (SELECT 1 FROM location_groups vg WHERE vg.location_id = " + locCol + ")" +
		" OR EXISTS (SELECT 1 FROM location_groups vg WHERE vg.location_id = " + locCol + " AND vg.group_id = ANY(?)))"
	args := []any{stringsArg(groups)}
	if ctrCol != "" {
		cond += " AND (NOT EXISTS (SELECT 1 FROM container_groups vc WHERE vc.container_id = " + ctrCol + ")" +
			" OR EXISTS (SELECT 1 FROM container_groups vc WHERE vc.container_id = " + ctrCol + " AND vc.group_id = ANY(?)))"
		args = append(args, stringsArg(groups))
	}
	return cond, args, nil
}

// checkVisible answers 403 when the caller may not see the location /
// container pair (ctrID may be empty for a location).
func (s *Server) checkVisible(c *gin.Context, locID, ctrID string) error {
	p := principalOf(c)
	if p == nil || p.IsAdmin() {
		return nil
	}
	ctrCol := ""
	q := "SELECT count(*) FROM locations l"
	args := []any{}
	if ctrID != "" {
		ctrCol = "ct.id"
		q += " JOIN containers ct ON ct.location_id = l.id AND ct.id = ?"
		args = append(args, ctrID)
	}
	cond, vargs, err := s.visibleSQL(c, "l.id", ctrCol)
	if err != nil {
		return err
	}
	q += " WHERE l.id = ? AND " + cond
	args = append(append(args, locID), vargs...)
	var n int64
	if err := s.DB.WithContext(c.Request.Context()).Raw(q, args...).Scan(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return apperr.Forbidden("this object is not visible to you")
	}
	return nil
}

func stringsArg(v []string) models.Strings { return models.Strings(v) }
