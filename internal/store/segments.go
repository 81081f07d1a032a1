package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Segment parts: what each extractor reported at one time of an item
// (segment_parts rows, summary per extractor), read by the item summaries,
// the adult histograms and the keyword hits.

// AdultBucket is the NSFW scores of an item's segment parts in one
// interval: its start (seconds), their average and their maximum.
type AdultBucket struct {
	StartAt int64
	Avg     float64
	Max     float64
}

// AdultBuckets sums the NSFW scores of an item's segment parts up by
// interval (seconds): summary.nsfw.nsfw_score, or the score of category
// (summary.nsfw.categories.<category>) when it is not empty. Scores that
// are not numbers in 0..1 are left out, and so are empty buckets; buckets
// come in time order.
func AdultBuckets(db *gorm.DB, itemID string, interval int, category string) ([]AdultBucket, error) {
	score := `summary->'nsfw'->'nsfw_score'`
	args := []any{}
	if category != "" {
		score = `summary->'nsfw'->'categories'->?`
		args = append(args, category)
	}
	q := `SELECT start_at, avg(score) AS avg, max(score) AS max FROM (
		SELECT (time_ms / (?::bigint * 1000)) * ?::bigint AS start_at, (` + score + `)::text::float8 AS score
		FROM segment_parts WHERE item_id = ? AND jsonb_typeof(` + score + `) = 'number'
	) x WHERE score >= 0 AND score <= 1 GROUP BY start_at ORDER BY start_at`
	all := append([]any{interval, interval}, args...)
	all = append(all, itemID)
	all = append(all, args...)
	out := []AdultBucket{}
	if err := db.Raw(q, all...).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("adult scores of item %s: %w", itemID, err)
	}
	return out, nil
}

// FrameText is the text an extractor read in a frame of an item: the
// summary.ocr list of a segment part.
type FrameText struct {
	Extractor string
	TimeMS    int64
	OCR       models.JSON
}

// FrameTexts lists the frame texts of an item by extractor, then time.
func FrameTexts(db *gorm.DB, itemID string) ([]FrameText, error) {
	var rows []FrameText
	if err := db.Raw(`SELECT extractor, time_ms, summary->'ocr' AS ocr FROM segment_parts
		WHERE item_id = ? AND jsonb_typeof(summary->'ocr') = 'array' ORDER BY extractor, time_ms`, itemID).
		Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("frame texts of item %s: %w", itemID, err)
	}
	return rows, nil
}

// SegmentName is a tag, logo or place name (Kind "tags", "logos",
// "locations") and the number of an item's segments it appears in.
type SegmentName struct {
	Kind        string
	Name        string
	Appearances int64
	// Confidence is the highest a segment gave the name (tags; 0 when
	// none did); Source the service or model that found it (tags: the
	// first by name).
	Confidence float64
	Source     string
}

// SegmentNames counts the segments of an item each tag, logo and place
// name appears in, by kind, then most appearances, then name. Segments
// are the parts of every extractor merged by time: a name appears in as
// many segments as distinct times it is reported at.
func SegmentNames(db *gorm.DB, itemID string) ([]SegmentName, error) {
	elems := func(kind, arr, name string) string {
		return `SELECT '` + kind + `' AS kind, e` + name + ` AS name, sp.time_ms,
			CASE WHEN jsonb_typeof(e->'confidence') = 'number' THEN (e->>'confidence')::float8 END AS confidence,
			CASE WHEN jsonb_typeof(e->'source') = 'string' THEN e->>'source' END AS source FROM segment_parts sp
			CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(` + arr + `) = 'array' THEN ` + arr + ` ELSE '[]'::jsonb END) e
			WHERE sp.item_id = @id`
	}
	q := `SELECT kind, name, count(DISTINCT time_ms) AS appearances, coalesce(max(confidence), 0) AS confidence,
		coalesce(min(source), '') AS source FROM (` +
		elems("tags", "sp.summary->'tags'", "->>'name'") + ` UNION ALL ` +
		elems("logos", "sp.summary->'logos'", "->>'name'") + ` UNION ALL ` +
		elems("locations", "sp.summary->'locations'->'features'", "->'properties'->>'name'") + ` UNION ALL
		SELECT 'locations', sp.summary->'locations'->'properties'->>'name', sp.time_ms, NULL, NULL FROM segment_parts sp
			WHERE sp.item_id = @id AND jsonb_typeof(sp.summary->'locations'->'properties') = 'object'
		) x WHERE name IS NOT NULL AND btrim(name) <> '' GROUP BY kind, name ORDER BY kind, appearances DESC, name`
	var rows []SegmentName
	if err := db.Raw(q, map[string]any{"id": itemID}).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("segment names of item %s: %w", itemID, err)
	}
	return rows, nil
}
