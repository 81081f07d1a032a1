package store

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Reports over what a viewer may see: counts by media type, duplicates,
// insights, job progress. "Live" items are those not deleted.

// goSpace holds every rune unicode.IsSpace accepts, which is what
// strings.TrimSpace trims in models.MediaType.
const goSpace = "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

// goLowerFrom, goLowerTo map the non-ASCII runes that unicode.ToLower
// turns into ASCII letters (so strings.ToLower("İMAGE/PNG") is
// "image/png") onto those letters; lower() under the "C" collation then
// lowers ASCII only.
const goLowerFrom, goLowerTo = "\u0130\u212a", "ik"

// MediaTypeSQL is models.MediaType as a SQL expression over the mime type
// column col, for grouping in the database. It must agree with MediaType
// on every input (TestMediaTypeSQLAgreesWithSearch).
func MediaTypeSQL(col string) string {
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

// TypeCount is how many live items of a media type there are, and their size.
type TypeCount struct {
	Type  string `json:"type"`
	Count int64  `json:"count"`
	Size  int64  `json:"size"`
}

// TypeCounts counts the live items v may see by media type: one entry per
// type of models.MediaTypes, in that order, zeros included.
func TypeCounts(db *gorm.DB, v Viewer) ([]TypeCount, error) {
	vis, vargs := v.VisibleSQL("i.location_id", "i.container_id")
	var rows []TypeCount
	if err := db.Raw(`SELECT t.type, count(*) AS count, COALESCE(sum(t.size), 0)::bigint AS size
		FROM (SELECT `+MediaTypeSQL("i.mime_type")+` AS type, i.size FROM items i
			WHERE i.deleted_at IS NULL AND `+vis+`) t
		GROUP BY t.type`, vargs...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("count items by type: %w", err)
	}
	by := map[string]TypeCount{}
	for _, r := range rows {
		by[r.Type] = r
	}
	out := make([]TypeCount, len(models.MediaTypes))
	for i, t := range models.MediaTypes {
		out[i] = by[t]
		out[i].Type = t
	}
	return out, nil
}

// DuplicateRow is one item of a group of duplicates.
type DuplicateRow struct {
	Hash        string
	Count       int64 // items in the group
	Total       int64 // groups in all
	ItemID      string
	Name        string
	LocationID  string
	ContainerID string
	Size        int64
}

// Duplicates lists one page of the groups of live items v may see that
// share a SHA-256 (the hashes extractor), biggest first (then by hash),
// with at most perGroup items of each, by name. Invisible copies neither
// show nor make a group. One statement, so that the groups and their
// items are one snapshot.
func Duplicates(db *gorm.DB, v Viewer, p Page, perGroup int) ([]DuplicateRow, error) {
	vis, vargs := v.VisibleSQL("i.location_id", "i.container_id")
	// The hash expression is the one the items_sha256 index is built on:
	// the page's items are found through it (= ANY of the page's hashes
	// gives the planner an index condition, which a join alone does not).
	const hash = "(i.metadata->'hashes'->>'sha256')"
	var rows []DuplicateRow
	args := append(append(append(append([]any{}, vargs...), p.Limit, p.Offset), vargs...), perGroup)
	err := db.Raw(`WITH g AS MATERIALIZED (
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
		return nil, fmt.Errorf("list duplicates: %w", err)
	}
	return rows, nil
}

// LocationCount is a location with its live items.
type LocationCount struct {
	LocationID string `json:"location_id"`
	Name       string `json:"name"`
	Count      int64  `json:"count"`
	Size       int64  `json:"size"`
}

// HarvestCounts summarises the last day of harvests.
type HarvestCounts struct {
	JobsLast24h   int64     `json:"jobs_last_24h"`
	ErrorsLast24h int64     `json:"errors_last_24h"`
	LastHarvest   time.Time `json:"last_harvest"`
}

// ExtractorErrorCount is how many live items an extractor failed on.
type ExtractorErrorCount struct {
	Name      string `json:"name"`
	NumErrors int64  `json:"num_errors"`
}

// Insights is an overview of what a viewer may see.
type Insights struct {
	Types      []TypeCount
	Locations  []LocationCount
	Harvest    HarvestCounts
	TopErrors  []ExtractorErrorCount
	TotalFiles int64
	TotalSize  int64
}

// ReadInsights reads the overview of what v may see in one snapshot, so
// that its numbers agree with each other (see api/insights.go for what
// each means); topErrors bounds the extractors listed.
func ReadInsights(db *gorm.DB, v Viewer, topErrors int) (Insights, error) {
	visItem, itemArgs := v.VisibleSQL("i.location_id", "i.container_id")
	visLoc, locArgs := v.VisibleSQL("l.id", "")
	visJob, jobArgs := v.VisibleSQL("j.location_id", "j.container_id")
	visAct, actArgs := v.VisibleSQL("a.location_id", "a.container_id")
	var out Insights
	snapshot := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	err := db.Transaction(func(tx *gorm.DB) error {
		var err error
		if out.Types, err = TypeCounts(tx, v); err != nil {
			return err
		}
		out.Locations = []LocationCount{}
		if err := tx.Raw(`SELECT l.id AS location_id, l.name, count(i.id) AS count, COALESCE(sum(i.size), 0)::bigint AS size
			FROM locations l
			LEFT JOIN items i ON i.location_id = l.id AND i.deleted_at IS NULL AND `+visItem+`
			WHERE `+visLoc+`
			GROUP BY l.id, l.name
			ORDER BY count(i.id) DESC, COALESCE(sum(i.size), 0) DESC, lower(l.name), l.id`,
			append(append([]any{}, itemArgs...), locArgs...)...).Scan(&out.Locations).Error; err != nil {
			return fmt.Errorf("count items by location: %w", err)
		}
		var last sql.NullTime
		if err := tx.Raw(`SELECT
				(SELECT count(*) FROM jobs j WHERE j.created > now() - interval '24 hours' AND `+visJob+`) AS jobs,
				(SELECT count(*) FROM activities a WHERE a.ts > now() - interval '24 hours' AND a.error <> ''
					AND a.kind <> 'harvestend' AND `+visAct+`) AS errors,
				(SELECT max(i.last_harvested) FROM items i WHERE `+visItem+`) AS last`,
			append(append(append([]any{}, jobArgs...), actArgs...), itemArgs...)...).
			Row().Scan(&out.Harvest.JobsLast24h, &out.Harvest.ErrorsLast24h, &last); err != nil {
			return fmt.Errorf("count harvests: %w", err)
		}
		if last.Valid {
			out.Harvest.LastHarvest = last.Time.UTC()
		}
		out.TopErrors = []ExtractorErrorCount{}
		if err := tx.Raw(`SELECT r.key AS name, count(*) AS num_errors
			FROM items i, jsonb_each(i.results) r
			WHERE r.value->>'error' <> '' AND i.deleted_at IS NULL AND `+visItem+`
			GROUP BY r.key
			ORDER BY count(*) DESC, r.key
			LIMIT ?`, append(append([]any{}, itemArgs...), topErrors)...).Scan(&out.TopErrors).Error; err != nil {
			return fmt.Errorf("count extractor errors: %w", err)
		}
		return nil
	}, snapshot)
	if err != nil {
		return out, err
	}
	for _, t := range out.Types {
		out.TotalFiles += t.Count
		out.TotalSize += t.Size
	}
	return out, nil
}

// jsonNumberSQL is the numeric value of a jsonb text path expression, or
// NULL when the value is missing or not a plain non-negative number (so a
// malformed value never fails the query). Integer-valued when intOnly.
func jsonNumberSQL(expr string, intOnly bool) string {
	if intOnly {
		return "(CASE WHEN btrim(" + expr + ") ~ '^[0-9]{1,15}([.]0*){0,1}$' THEN trunc(btrim(" + expr + ")::numeric)::bigint END)"
	}
	return "(CASE WHEN btrim(" + expr + ") ~ '^[0-9]{1,15}([.][0-9]*){0,1}$' THEN btrim(" + expr + ")::double precision END)"
}

// PageCountFields are the metadata fields (extractor.field) that count a
// document's pages: a PDF's as poppler reads them (pdf, document_pages)
// and an office document's as the application that wrote it counted them.
var PageCountFields = []string{"pdf.page_count", "document_pages.page_count", "officex.page_count"}

// DataSummary is the data summary of the items a viewer may see.
//
//   - TotalFiles, TotalSize: live items.
//   - DeletedFiles: soft-deleted items.
//   - TotalPages: per live item its page count (PageCountFields: the
//     largest when several extractors counted, so one document is counted
//     once); a missing or non-numeric count is 0.
//   - VideoRuntimeSeconds: mediainfo duration (seconds) of live items whose
//     mime type is audio/* or video/*.
//   - LastHarvest: latest last_harvested of any item, deleted ones included
//     (the harvest happened); nil when nothing was harvested.
type DataSummary struct {
	TotalFiles          int64
	DeletedFiles        int64
	TotalPages          int64
	TotalSize           int64
	VideoRuntimeSeconds float64
	LastHarvest         *time.Time
}

// ReadDataSummary counts the DataSummary of what v may see.
func ReadDataSummary(db *gorm.DB, v Viewer) (DataSummary, error) {
	vis, vargs := v.VisibleSQL("i.location_id", "i.container_id")
	counts := make([]string, len(PageCountFields))
	for i, f := range PageCountFields {
		extractor, field, _ := strings.Cut(f, ".")
		counts[i] = jsonNumberSQL("i.metadata->'"+extractor+"'->>'"+field+"'", true)
	}
	pages := "GREATEST(" + strings.Join(counts, ", ") + ")"
	runtime := jsonNumberSQL("i.metadata->'mediainfo'->>'duration'", false)
	var row DataSummary
	err := db.Raw(`SELECT
			count(*) FILTER (WHERE i.deleted_at IS NULL) AS total_files,
			count(*) FILTER (WHERE i.deleted_at IS NOT NULL) AS deleted_files,
			COALESCE(sum(`+pages+`) FILTER (WHERE i.deleted_at IS NULL), 0)::bigint AS total_pages,
			COALESCE(sum(i.size) FILTER (WHERE i.deleted_at IS NULL), 0)::bigint AS total_size,
			COALESCE(sum(`+runtime+`) FILTER (WHERE i.deleted_at IS NULL
				AND split_part(i.mime_type, '/', 1) IN ('audio', 'video')), 0)::double precision AS video_runtime_seconds,
			max(i.last_harvested) AS last_harvest
		FROM items i WHERE `+vis, vargs...).Scan(&row).Error
	if err != nil {
		return row, fmt.Errorf("data summary: %w", err)
	}
	return row, nil
}
