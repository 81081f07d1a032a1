package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
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
	vis, vargs, err := s.visibleSQL(c, "i.location_id", "i.container_id")
	if err != nil {
		return err
	}
	// One statement, so that the groups and their items are one snapshot.
	// The hash expression is the one the items_sha256 index is built on:
	// the page's items are found through it (= ANY of the page's hashes
	// gives the planner an index condition, which a join alone does not).
	const hash = "(i.metadata->'hashes'->>'sha256')"
	var rows []struct {
		Hash        string
		Count       int64
		Total       int64
		ItemID      string
		Name        string
		LocationID  string
		ContainerID string
		Size        int64
	}
	args := append(append(append(append([]any{}, vargs...), page.Limit, page.Offset), vargs...), duplicateItemsMax)
	err = s.db(c).Raw(`WITH g AS MATERIALIZED (
			SELECT `+hash+` AS hash, count(*) AS count, count(*) OVER () AS total
			FROM items i
			WHERE i.deleted_at IS NULL AND `+hash+` <> '' AND `+vis+`
			GROUP BY 1 HAVING count(*) > 1
			ORDER BY count(*) DESC, 1 LIMIT ? OFFSET ?
		), r AS (
			SELECT g.hash, g.count, g.total, i.id AS item_id, i.name, i.location_id, i.container_id, i.size,
				row_number() OVER (PARTITION BY g.hash ORDER BY i.name, i.id) AS rn
			FROM g JOIN items i ON `+hash+` = g.hash
			WHERE `+hash+` = ANY (ARRAY(SELECT hash FROM g)) AND i.deleted_at IS NULL AND `+vis+`
		)
		SELECT hash, count, total, item_id, name, location_id, container_id, size
		FROM r WHERE rn <= ?
		ORDER BY count DESC, hash, rn`, args...).Scan(&rows).Error
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
