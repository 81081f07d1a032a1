package api

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/search"
)

// searchVisibility is what the engine lets the caller see (see
// access.Principal.SearchVisibility).
func (s *Server) searchVisibility(c *gin.Context) (search.Visibility, error) {
	return principalOf(c).SearchVisibility(c.Request.Context(), s.DB)
}

// engine returns the search engine, or 503 when the deployment has none.
func (s *Server) engine() (search.Engine, error) {
	if s.Search == nil {
		return nil, apperr.Unavailable("no search engine is configured")
	}
	return s.Search, nil
}

// engineFor is the search engine and what the caller may see in it.
func (s *Server) engineFor(c *gin.Context) (search.Engine, search.Visibility, error) {
	eng, err := s.engine()
	if err != nil {
		return nil, search.Visibility{}, err
	}
	vis, err := s.searchVisibility(c)
	return eng, vis, err
}

// withEngine runs a query against the engine with the caller's visibility
// and writes its answer: the one path of every search endpoint.
func (s *Server) withEngine(c *gin.Context, query func(search.Engine, search.Visibility) (any, error)) error {
	eng, vis, err := s.engineFor(c)
	if err != nil {
		return err
	}
	res, err := query(eng, vis)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, res)
	return nil
}

func (s *Server) search(c *gin.Context) error {
	var req search.Request
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	return s.withEngine(c, func(eng search.Engine, vis search.Visibility) (any, error) {
		return eng.Search(c.Request.Context(), req, vis)
	})
}

func (s *Server) searchAnalytics(c *gin.Context) error {
	return s.withEngine(c, func(eng search.Engine, vis search.Visibility) (any, error) {
		return eng.Analytics(c.Request.Context(), vis)
	})
}

func (s *Server) searchSegments(c *gin.Context) error {
	var req search.SegmentRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	return s.withEngine(c, func(eng search.Engine, vis search.Visibility) (any, error) {
		return eng.SearchSegments(c.Request.Context(), req, vis)
	})
}

func (s *Server) getSegment(c *gin.Context) error {
	return s.withEngine(c, func(eng search.Engine, vis search.Visibility) (any, error) {
		seg, err := eng.GetSegment(c.Request.Context(), c.Param("id"), vis)
		switch {
		case errors.Is(err, search.ErrNotFound):
			return nil, apperr.NotFound("segment", c.Param("id"))
		case errors.Is(err, search.ErrNotVisible):
			return nil, apperr.Forbidden("this segment is not visible to you")
		}
		return seg, err
	})
}
