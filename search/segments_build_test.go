package search_test

import (
	"context"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
)

// Drain indexes an item's segments (merged from every extractor's parts by
// time) and its transcripts with its document, and replaces them when they
// change.
func TestDrainIndexesSegmentsAndTranscripts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	eng, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	db.Create(&models.Location{ID: "l", Kind: "filesystem", Name: "l", Config: models.JSON(`{"path":"/x"}`)})
	db.Create(&models.Container{ID: "c", LocationID: "l", Name: "c"})
	if err := db.Create(&models.Group{ID: "g1", Name: "g1"}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&models.ContainerGroup{ContainerID: "c", GroupID: "g1"}).Error; err != nil {
		t.Fatal(err)
	}
	item := models.Item{ID: "v1", LocationID: "l", ContainerID: "c", Path: "clip.mp4", Name: "clip.mp4", MimeType: "video/mp4",
		Metadata: models.JSON(`{}`)}
	if err := db.Create(&item).Error; err != nil {
		t.Fatal(err)
	}
	parts := []models.SegmentPart{
		{ItemID: "v1", Extractor: "tesseract", TimeMS: 2000, Summary: models.JSON(`{"ocr":[{"text":"zanzibar harbour","source":"tesseract"}]}`)},
		{ItemID: "v1", Extractor: "video_main_frames", TimeMS: 2000, Summary: models.JSON(`{}`),
			Thumbnail: models.JSON(`{"path":"v1/v1/video_main_frames/f2.jpg","width":160,"height":90,"type":"image"}`)},
		{ItemID: "v1", Extractor: "vendor_faces", TimeMS: 2000,
			Summary: models.JSON(`{"people":[{"face_rectangle":{"top":1,"left":2,"height":3,"width":4},"source":"pigo"}]}`)},
		{ItemID: "v1", Extractor: "video_main_frames", TimeMS: 4000, Summary: models.JSON(`{}`)},
		{ItemID: "v1", Extractor: "tesseract", TimeMS: 4000, Summary: models.JSON(`{"ocr":"not a list"}`)},
	}
	if err := db.Create(&parts).Error; err != nil {
		t.Fatal(err)
	}
	db.Create(&models.Caption{ID: "cap1", ItemID: "v1", Extractor: "captions", Source: "embedded", Language: "en",
		Cues: models.JSON(`[{"start_at":1,"end_at":2,"text":"the ferry leaves at noon"}]`)})
	search.MarkDirty(db, "v1")
	if _, err := search.Drain(ctx, db, eng, 10); err != nil {
		t.Fatal(err)
	}
	all := search.Visibility{All: true}
	req := search.SegmentRequest{Query: "zanzibar", Filters: &search.SegmentFilters{ExactTerms: []search.Term{{Field: "item_id", Value: "v1"}}}}
	res, err := eng.SearchSegments(ctx, req, all)
	if err != nil || res.TotalHits != 1 {
		t.Fatalf("segments after drain: %+v %v", res, err)
	}
	seg, err := eng.GetSegment(ctx, "v1-2000", all)
	if err != nil || seg.Time != 2 || len(seg.Summary.OCR) != 1 || len(seg.Summary.People) != 1 ||
		seg.Thumbnail == nil || seg.Thumbnail.Path != "v1/v1/video_main_frames/f2.jpg" || seg.Thumbnail.Width != 160 {
		t.Fatalf("merged segment: %+v %v", seg, err)
	}
	if _, err := eng.GetSegment(ctx, "v1-2000", search.Visibility{GroupIDs: []string{"other"}}); err == nil {
		t.Error("a segment of an item in another group is visible")
	}
	if seg, err := eng.GetSegment(ctx, "v1-4000", all); err != nil || seg.Thumbnail != nil || len(seg.Summary.OCR) != 0 {
		t.Fatalf("segment with a malformed part: %+v %v", seg, err)
	}
	hits, err := eng.Search(ctx, search.Request{Query: "ferry", Limit: 10}, all)
	if err != nil || hits.TotalHits != 1 {
		t.Fatalf("transcript search: %+v %v", hits, err)
	}
	hits, err = eng.Search(ctx, search.Request{Limit: 10, Filters: &search.Filters{Terms: []search.Term{{Field: "transcript.languages", Value: "en"}}}}, all)
	if err != nil || hits.TotalHits != 1 {
		t.Fatalf("transcript language filter: %+v %v", hits, err)
	}

	// Harvested again without segments or captions: they leave the index.
	db.Where("item_id = 'v1'").Delete(&models.SegmentPart{})
	db.Where("item_id = 'v1'").Delete(&models.Caption{})
	search.MarkDirty(db, "v1")
	if _, err := search.Drain(ctx, db, eng, 10); err != nil {
		t.Fatal(err)
	}
	if res, err := eng.SearchSegments(ctx, req, all); err != nil || res.TotalHits != 0 {
		t.Fatalf("stale segments kept: %+v %v", res, err)
	}
	if hits, err := eng.Search(ctx, search.Request{Query: "ferry", Limit: 10}, all); err != nil || hits.TotalHits != 0 {
		t.Fatalf("stale transcript kept: %+v %v", hits, err)
	}
}
