package search_test

import (
	"context"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
)

func TestSegmentsOfMergesExtractorsByTime(t *testing.T) {
	t.Parallel()
	doc := search.Document{
		"_id":               "item1",
		"_location_groups":  []any{"g1"},
		"_container_groups": []any{},
		"tesseract": map[string]any{"segments": []any{
			map[string]any{"time": 1.5, "summary": map[string]any{"ocr": []any{map[string]any{"text": "EXIT", "source": "tesseract"}}}},
			map[string]any{"time": 4.0, "summary": map[string]any{"ocr": []any{map[string]any{"text": "GATE 4"}}}},
			map[string]any{"time": -1.0, "summary": map[string]any{}},   // invalid: dropped
			map[string]any{"time": "soon", "summary": map[string]any{}}, // invalid: dropped
		}},
		"video_main_frames": map[string]any{"segments": []any{
			map[string]any{"time": 1.5004, "summary": map[string]any{"tags": []any{map[string]any{"name": "airport", "confidence": 0.9}},
				"nsfw": map[string]any{"nsfw": false, "nsfw_score": 0.02}}},
		}},
		"hashes": map[string]any{"sha256": "x"},
	}
	segs := search.SegmentsOf(doc)
	if len(segs) != 2 {
		t.Fatalf("segments: %+v", segs)
	}
	first := segs[0]
	if first.ID != "item1-1500" || first.Time != 1.5 || len(first.Summary.OCR) != 1 || len(first.Summary.Tags) != 1 ||
		first.Summary.NSFW == nil || first.LocationGroups[0] != "g1" {
		t.Fatalf("merged segment: %+v", first)
	}
	if segs[1].Time != 4 || segs[1].Summary.OCR[0].Text != "GATE 4" {
		t.Fatalf("second segment: %+v", segs[1])
	}
}

// Drain indexes an item's segments with its document, and replaces them
// when the item's metadata changes.
func TestDrainIndexesSegmentsOfItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	eng, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	db.Create(&models.Location{ID: "l", Kind: "filesystem", Name: "l", Config: models.JSON(`{"path":"/x"}`)})
	db.Create(&models.Container{ID: "c", LocationID: "l", Name: "c"})
	item := models.Item{ID: "v1", LocationID: "l", ContainerID: "c", Path: "clip.mp4", Name: "clip.mp4", MimeType: "video/mp4",
		Metadata: models.MustJSON(map[string]any{"tesseract": map[string]any{"segments": []any{
			map[string]any{"time": 2, "summary": map[string]any{"ocr": []any{map[string]any{"text": "zanzibar harbour"}}}},
		}}})}
	if err := db.Create(&item).Error; err != nil {
		t.Fatal(err)
	}
	search.MarkDirty(db, "v1")
	if _, err := search.Drain(ctx, db, eng, 10); err != nil {
		t.Fatal(err)
	}
	req := search.SegmentRequest{Query: "zanzibar", Filters: &search.SegmentFilters{ExactTerms: []search.Term{{Field: "item_id", Value: "v1"}}}}
	res, err := eng.SearchSegments(ctx, req, search.Visibility{All: true})
	if err != nil || res.TotalHits != 1 {
		t.Fatalf("segments after drain: %+v %v", res, err)
	}
	seg, err := eng.GetSegment(ctx, "v1-2000", search.Visibility{All: true})
	if err != nil || seg.Time != 2 {
		t.Fatalf("get segment: %+v %v", seg, err)
	}
	// The item is harvested again without segments: they leave the index.
	db.Model(&models.Item{}).Where("id = 'v1'").Update("metadata", models.JSON(`{"hashes":{"sha256":"x"}}`))
	search.MarkDirty(db, "v1")
	if _, err := search.Drain(ctx, db, eng, 10); err != nil {
		t.Fatal(err)
	}
	if res, err := eng.SearchSegments(ctx, req, search.Visibility{All: true}); err != nil || res.TotalHits != 0 {
		t.Fatalf("stale segments kept: %+v %v", res, err)
	}
}
