package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
)

// Item overviews for clients of the original product: counts by media type
// (here), duplicates by content hash (duplicates.go) and insights
// (insights.go). All are computed from the items the caller may see (the
// visibility rule of visibility.go); "live" items are those not deleted.

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
	types, err := s.typeCounts(c, s.db(c))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"types": types})
	return nil
}
