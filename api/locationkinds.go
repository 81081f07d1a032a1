package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/storage"
)

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
