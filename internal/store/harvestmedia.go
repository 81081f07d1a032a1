package store

import (
	"fmt"
	"time"

	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/models"
)

// What a harvest's extractors found besides their data (worker/media.go,
// worker/record.go): artifacts, segment parts and extracted captions, and
// the removal of what an extractor harvested again had found before.

// UpsertArtifacts writes artifacts, in batches of 500; an artifact that
// exists takes the new row's columns.
func UpsertArtifacts(tx *DB, artifacts []models.Artifact) error {
	return tx.Clauses(clause.OnConflict{UpdateAll: true}).CreateInBatches(artifacts, 500).Error
}

// SegmentParts are segment parts, column by column: one row per item,
// extractor and millisecond (TimeMS); Thumbnail is a JSON object or "",
// Summary a JSON object.
type SegmentParts struct {
	Item, Extractor []string
	TimeMS          []int64
	Thumbnail       []string
	Summary         []string
}

// InsertSegmentParts writes segment parts; a part of the same item,
// extractor and millisecond takes the new thumbnail and summary.
func InsertSegmentParts(tx *DB, p SegmentParts) error {
	if _, err := tx.Statement.ConnPool.ExecContext(tx.Statement.Context, `
INSERT INTO segment_parts (item_id, extractor, time_ms, thumbnail, summary)
SELECT x.item_id, x.extractor, x.time_ms, NULLIF(x.thumbnail, '')::jsonb, x.summary::jsonb
FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[]) AS x(item_id, extractor, time_ms, thumbnail, summary)
ON CONFLICT (item_id, extractor, time_ms) DO UPDATE SET thumbnail = EXCLUDED.thumbnail, summary = EXCLUDED.summary`,
		p.Item, p.Extractor, p.TimeMS, p.Thumbnail, p.Summary); err != nil {
		return fmt.Errorf("insert segment parts: %w", err)
	}
	return nil
}

// ExtractedCaptions are extracted captions, column by column; Cues are JSON arrays.
type ExtractedCaptions struct {
	ID, Item, Extractor, Label, Source, Language, Format, Cues []string
	Confidence                                                 []float64
}

// InsertCaptions writes extracted captions, added at now; a caption of the
// same id takes the new source, language, confidence, format, cues and
// time.
func InsertCaptions(tx *DB, c ExtractedCaptions, now time.Time) error {
	if _, err := tx.Statement.ConnPool.ExecContext(tx.Statement.Context, `
INSERT INTO captions (id, item_id, extractor, label, source, language, confidence, format, cues, added_at)
SELECT x.id, x.item_id, x.extractor, x.label, x.source, x.language, x.confidence, x.format, x.cues::jsonb, $10
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::text[], $9::text[])
	AS x(id, item_id, extractor, label, source, language, confidence, format, cues)
ON CONFLICT (id) DO UPDATE SET source = EXCLUDED.source, language = EXCLUDED.language, confidence = EXCLUDED.confidence,
	format = EXCLUDED.format, cues = EXCLUDED.cues, added_at = EXCLUDED.added_at`,
		c.ID, c.Item, c.Extractor, c.Label, c.Source, c.Language, c.Confidence, c.Format, c.Cues, now); err != nil {
		return fmt.Errorf("insert captions: %w", err)
	}
	return nil
}

// DeleteExtractorResults removes what extractors had found before in
// items, pairwise (items[i], extractors[i]): their artifacts, segment parts,
// extracted captions (uploaded captions stay) and face descriptors.
func DeleteExtractorResults(tx *DB, items, extractors []string) error {
	for _, table := range []string{"artifacts", "segment_parts", "captions", "face_descriptors"} {
		q := fmt.Sprintf(`DELETE FROM %s t USING unnest($1::text[], $2::text[]) AS x(item_id, extractor)
WHERE t.item_id = x.item_id AND t.extractor = x.extractor`, table)
		if _, err := tx.Statement.ConnPool.ExecContext(tx.Statement.Context, q, items, extractors); err != nil {
			return fmt.Errorf("replace %s: %w", table, err)
		}
	}
	return nil
}
