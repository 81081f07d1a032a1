package api

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/search"
)

// searchVisibility is what the engine lets the caller see: everything for
// administrators, else documents of locations and containers without groups
// or sharing one of the caller's groups. The engine enforces it; clients
// cannot widen it with filters.
func (s *Server) searchVisibility(c *gin.Context) (search.Visibility, error) {
	p := principalOf(c)
	if p.IsAdmin() {
		return search.Visibility{All: true}, nil
	}
	groups, err := p.GroupIDs(c.Request.Context(), s.DB)
	if err != nil {
		return search.Visibility{}, err
	}
	return search.Visibility{GroupIDs: append([]string{}, groups...)}, nil
}

// engine returns the search engine, or 503 when the deployment has none.
func (s *Server) engine() (search.Engine, error) {
	if s.Search == nil {
		return nil, apperr.Unavailable("no search engine is configured")
	}
	return s.Search, nil
}

func (s *Server) search(c *gin.Context) error {
	eng, err := s.engine()
	if err != nil {
		return err
	}
	var req search.Request
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	vis, err := s.searchVisibility(c)
	if err != nil {
		return err
	}
	res, err := eng.Search(c.Request.Context(), req, vis)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, res)
	return nil
}

func (s *Server) searchAnalytics(c *gin.Context) error {
	eng, err := s.engine()
	if err != nil {
		return err
	}
	vis, err := s.searchVisibility(c)
	if err != nil {
		return err
	}
	res, err := eng.Analytics(c.Request.Context(), vis)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, res)
	return nil
}

func (s *Server) searchSegments(c *gin.Context) error {
	eng, err := s.engine()
	if err != nil {
		return err
	}
	var req search.SegmentRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	vis, err := s.searchVisibility(c)
	if err != nil {
		return err
	}
	res, err := eng.SearchSegments(c.Request.Context(), req, vis)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, res)
	return nil
}

func (s *Server) getSegment(c *gin.Context) error {
	eng, err := s.engine()
	if err != nil {
		return err
	}
	vis, err := s.searchVisibility(c)
	if err != nil {
		return err
	}
	seg, err := eng.GetSegment(c.Request.Context(), c.Param("id"), vis)
	switch {
	case errors.Is(err, search.ErrNotFound):
		return apperr.NotFound("segment", c.Param("id"))
	case errors.Is(err, search.ErrNotVisible):
		return apperr.Forbidden("this segment is not visible to you")
	case err != nil:
		return err
	}
	c.JSON(http.StatusOK, seg)
	return nil
}
