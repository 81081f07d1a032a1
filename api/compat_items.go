package api

import (
	"database/sql"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
)

// Item overviews for clients of the original product: duplicates by content
// hash, counts by media type, and insights. All are computed from the items
// the caller may see (the visibility rule of visibility.go); "live" items
// are those not deleted.

// goSpace holds every rune unicode.IsSpace accepts, which is what
// strings.TrimSpace trims in search.MediaType.
const goSpace = "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

// goLowerToASCII maps the non-ASCII runes that unicode.ToLower turns into
// ASCII letters (so strings.ToLower("İMAGE/PNG") is "image/png") onto those
// letters; lower() under the "C" collation then lowers ASCII only.
const goLowerFrom, goLowerTo = "\u0130\u212a", "ik"

// mediaTypeSQL is search.MediaType as a SQL expression over the mime type
// column col, for grouping in the database. It must agree with MediaType
// on every input (TestMediaTypeSQLAgreesWithSearch).
func mediaTypeSQL(col string) string {
	m := "btrim(split_part(lower(translate(" + col + ", '" + goLowerFrom + "', '" + goLowerTo + `') COLLATE "C"), ';', 1), '` + goSpace + "')"
	return `(CASE
		WHEN starts_with(` + m + `, 'video/') THEN 'video'
		WHEN starts_with(` + m + `, 'audio/') THEN 'audio'
		WHEN starts_with(` + m + `, 'image/') THEN 'image'
		WHEN starts_with(` + m + `, 'text/')
			OR ` + m + ` IN ('application/pdf', 'application/msword', 'application/rtf', 'application/epub+zip',
				'application/vnd.ms-excel', 'application/vnd.ms-powerpoint', 'application/json', 'application/xml',
				'application/x-subrip', 'message/rfc822')
			OR starts_with(` + m + `, 'application/vnd.openxmlformats-officedocument.')
			OR starts_with(` + m + `, 'application/vnd.oasis.opendocument.') THEN 'document'
		ELSE 'other' END)`
}

type typeCountJSON struct {
	Type  string `json:"type"`
	Count int64  `json:"count"`
	Size  int64  `json:"size"`
}

// typeCounts counts the caller's visible live items by media type: one
// entry per type of search.MediaTypes, in that order, zeros included.
func (s *Server) typeCounts(c *gin.Context, db *gorm.DB) ([]typeCountJSON, error) {
	vis, vargs, err := s.visibleSQL(c, "i.location_id", "i.container_id")
	if err != nil {
		return nil, err
	}
	var rows []typeCountJSON
	if err := db.Raw(`SELECT t.type, count(*) AS count, COALESCE(sum(t.size), 0)::bigint AS size
		FROM (SELECT `+mediaTypeSQL("i.mime_type")+` AS type, i.size FROM items i
			WHERE i.deleted_at IS NULL AND `+vis+`) t
		GROUP BY t.type`, vargs...).Scan(&rows).Error; err != nil {
		return nil, err
	}
	by := map[string]typeCountJSON{}
	for _, r := range rows {
		by[r.Type] = r
	}
	out := make([]typeCountJSON, len(search.MediaTypes))
	for i, t := range search.MediaTypes {
		out[i] = by[t]
		out[i].Type = t
	}
	return out, nil
}

// GET /api/data/v3/items/types
func (s *Server) itemTypes(c *gin.Context) error {
	types, err := s.typeCounts(c, s.DB.WithContext(c.Request.Context()))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"types": types})
	return nil
}

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
	err = s.DB.WithContext(c.Request.Context()).Raw(`WITH g AS MATERIALIZED (
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

type locationInsightJSON struct {
	LocationID string `json:"location_id"`
	Name       string `json:"name"`
	Count      int64  `json:"count"`
	Size       int64  `json:"size"`
}

type harvestInsightJSON struct {
	JobsLast24h   int64     `json:"jobs_last_24h"`
	ErrorsLast24h int64     `json:"errors_last_24h"`
	LastHarvest   time.Time `json:"last_harvest"`
}

type extractorErrorsJSON struct {
	Name      string `json:"name"`
	NumErrors int64  `json:"num_errors"`
}

// topExtractorErrorsMax is how many extractors top_extractor_errors lists.
const topExtractorErrorsMax = 10

// GET /api/data/v3/insights: an overview of what the caller may see, read
// in one snapshot so its numbers agree with each other.
//
//   - total_files, total_size, by_type: visible live items.
//   - by_location: every visible location with its visible live items
//     (containers hidden from the caller left out), most files first.
//   - harvest.jobs_last_24h: visible jobs created in the last 24 hours;
//     harvest.errors_last_24h: failed walks, downloads and extractor runs
//     recorded in that time; harvest.last_harvest: latest harvest of any
//     visible item, deleted ones included; the zero timestamp when none (as
//     in the data summary).
//   - top_extractor_errors: extractors whose latest run failed on the most
//     visible live items.
func (s *Server) insights(c *gin.Context) error {
	visItem, itemArgs, err := s.visibleSQL(c, "i.location_id", "i.container_id")
	if err != nil {
		return err
	}
	visLoc, locArgs, err := s.visibleSQL(c, "l.id", "")
	if err != nil {
		return err
	}
	visJob, jobArgs, err := s.visibleSQL(c, "j.location_id", "j.container_id")
	if err != nil {
		return err
	}
	visAct, actArgs, err := s.visibleSQL(c, "a.location_id", "a.container_id")
	if err != nil {
		return err
	}
	var (
		types    []typeCountJSON
		locs     []locationInsightJSON
		harvest  harvestInsightJSON
		topErrs  []extractorErrorsJSON
		snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	)
	err = s.DB.WithContext(c.Request.Context()).Transaction(func(tx *gorm.DB) error {
		var err error
		if types, err = s.typeCounts(c, tx); err != nil {
			return err
		}
		if err := tx.Raw(`SELECT l.id AS location_id, l.name, count(i.id) AS count, COALESCE(sum(i.size), 0)::bigint AS size
			FROM locations l
			LEFT JOIN items i ON i.location_id = l.id AND i.deleted_at IS NULL AND `+visItem+`
			WHERE `+visLoc+`
			GROUP BY l.id, l.name
			ORDER BY count(i.id) DESC, COALESCE(sum(i.size), 0) DESC, lower(l.name), l.id`,
			append(append([]any{}, itemArgs...), locArgs...)...).Scan(&locs).Error; err != nil {
			return err
		}
		var last sql.NullTime
		if err := tx.Raw(`SELECT
				(SELECT count(*) FROM jobs j WHERE j.created > now() - interval '24 hours' AND `+visJob+`) AS jobs,
				(SELECT count(*) FROM activities a WHERE a.ts > now() - interval '24 hours' AND a.error <> ''
					AND a.kind <> 'harvestend' AND `+visAct+`) AS errors,
				(SELECT max(i.last_harvested) FROM items i WHERE `+visItem+`) AS last`,
			append(append(append([]any{}, jobArgs...), actArgs...), itemArgs...)...).
			Row().Scan(&harvest.JobsLast24h, &harvest.ErrorsLast24h, &last); err != nil {
			return err
		}
		if last.Valid {
			harvest.LastHarvest = last.Time.UTC()
		}
		return tx.Raw(`SELECT r.key AS name, count(*) AS num_errors
			FROM items i, jsonb_each(i.results) r
			WHERE r.value->>'error' <> '' AND i.deleted_at IS NULL AND `+visItem+`
			GROUP BY r.key
			ORDER BY count(*) DESC, r.key
			LIMIT ?`, append(append([]any{}, itemArgs...), topExtractorErrorsMax)...).Scan(&topErrs).Error
	}, snapshot)
	if err != nil {
		return err
	}
	var files, size int64
	for _, t := range types {
		files += t.Count
		size += t.Size
	}
	if locs == nil {
		locs = []locationInsightJSON{}
	}
	if topErrs == nil {
		topErrs = []extractorErrorsJSON{}
	}
	c.JSON(http.StatusOK, gin.H{
		"total_files":          files,
		"total_size":           size,
		"by_type":              types,
		"by_location":          locs,
		"harvest":              harvest,
		"top_extractor_errors": topErrs,
	})
	return nil
}
