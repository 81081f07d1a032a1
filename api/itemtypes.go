package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/store"
)

// Item overviews for clients of the original product: counts by media type
// (here), duplicates by content hash (duplicates.go) and insights
// (insights.go). All are computed from the items the caller may see (the
// visibility rule of visibility.go); "live" items are those not deleted.

// GET /api/data/v3/items/types
func (s *Server) itemTypes(c *gin.Context) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	types, err := store.TypeCounts(s.db(c), v)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"types": types})
	return nil
}
