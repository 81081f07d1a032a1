package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/store"
)

// duplicateItemsMax bounds the items listed per duplicate group; count
// still says how many there are.
const duplicateItemsMax = 100

type duplicateItemJSON struct {
	ItemID      string `json:"item_id"`
	Name        string `json:"name"`
	LocationID  string `json:"location_id"`
	ContainerID string `json:"container_id"`
	Size        int64  `json:"size"`
}

type duplicateJSON struct {
	Hash  string              `json:"hash"`
	Count int64               `json:"count"`
	Items []duplicateItemJSON `json:"items"`
}

// GET /api/data/v3/duplicates?limit=&page-token=: live items grouped by
// their SHA-256 (the hashes extractor), groups of two or more, biggest
// first (then by hash, so pages are stable). Only visible items are
// grouped and counted: an invisible copy neither shows nor makes a group.
// Each group lists its first duplicateItemsMax items by name.
func (s *Server) listDuplicates(c *gin.Context) error {
	page, err := tokenPage(c, 20, 100)
	if err != nil {
		return err
	}
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.Duplicates(s.db(c), v, store.Page(page), duplicateItemsMax)
	if err != nil {
		return err
	}
	out := []duplicateJSON{}
	total := int64(page.Offset) // past the end: no next page
	for _, r := range rows {
		total = r.Total
		if n := len(out); n == 0 || out[n-1].Hash != r.Hash {
			out = append(out, duplicateJSON{Hash: r.Hash, Count: r.Count, Items: []duplicateItemJSON{}})
		}
		g := &out[len(out)-1]
		g.Items = append(g.Items, duplicateItemJSON{ItemID: r.ItemID, Name: r.Name, LocationID: r.LocationID,
			ContainerID: r.ContainerID, Size: r.Size})
	}
	next, prev := page.Tokens(total)
	c.JSON(http.StatusOK, gin.H{"duplicates": out, "next_page_token": next, "previous_page_token": prev})
	return nil
}
