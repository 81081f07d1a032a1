package search_test

import (
	"context"
	"encoding/json"
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

// The item's captions are linked to its segments by time when they are
// built: a segment search for a word of a caption finds the frame whose
// stretch the cue falls in, and an item with captions but no frames (an
// audio file with speech) gets segments at its cues' times. Both are
// searchable and filterable by the caption's source and language.
func TestDrainLinksCaptionsToSegments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	eng, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	db.Create(&models.Location{ID: "l", Kind: "filesystem", Name: "l", Config: models.JSON(`{"path":"/x"}`)})
	db.Create(&models.Container{ID: "c", LocationID: "l", Name: "c"})
	for _, it := range []models.Item{
		{ID: "clip", LocationID: "l", ContainerID: "c", Path: "clip.mp4", Name: "clip.mp4", MimeType: "video/mp4", Metadata: models.JSON(`{}`)},
		{ID: "talk", LocationID: "l", ContainerID: "c", Path: "talk.wav", Name: "talk.wav", MimeType: "audio/wav", Metadata: models.JSON(`{}`)},
	} {
		if err := db.Create(&it).Error; err != nil {
			t.Fatal(err)
		}
	}
	parts := []models.SegmentPart{
		{ItemID: "clip", Extractor: "video_main_frames", TimeMS: 0, Summary: models.JSON(`{}`)},
		{ItemID: "clip", Extractor: "video_main_frames", TimeMS: 4000, Summary: models.JSON(`{}`),
			Thumbnail: models.JSON(`{"path":"cl/clip/video_main_frames/f4.jpg","width":160,"height":90,"type":"image"}`)},
	}
	if err := db.Create(&parts).Error; err != nil {
		t.Fatal(err)
	}
	for _, c := range []models.Caption{
		{ID: "c1", ItemID: "clip", Extractor: "caption_files", Source: "sidecar", Language: "en",
			Cues: models.JSON(`[{"start_at":1,"end_at":2,"text":"the ferry leaves"},{"start_at":4.5,"end_at":6,"text":"harbour lights"}]`)},
		{ID: "c2", ItemID: "talk", Extractor: "speech_to_text", Source: "speech", Language: "en",
			Cues: models.JSON(`[{"start_at":0.21,"end_at":2.79,"text":"he was not an ill disposed young man"},` +
				`{"start_at":5.21,"end_at":8,"text":"he might even have been made amiable himself"}]`)},
		{ID: "c3", ItemID: "talk", Extractor: "", Source: "uploaded", Language: "", Cues: models.JSON(`"malformed"`)},
	} {
		if err := db.Create(&c).Error; err != nil {
			t.Fatal(err)
		}
	}
	search.MarkDirty(db, "clip", "talk")
	if _, err := search.Drain(ctx, db, eng, 10); err != nil {
		t.Fatal(err)
	}
	all := search.Visibility{All: true}
	find := func(query string, filters search.SegmentFilters) []search.Segment {
		t.Helper()
		res, err := eng.SearchSegments(ctx, search.SegmentRequest{Query: query, Filters: &filters, Limit: 10}, all)
		if err != nil {
			t.Fatal(err)
		}
		var out []search.Segment
		for _, r := range res.Results {
			b, _ := json.Marshal(r.Result)
			var s search.Segment
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	of := func(item string) search.SegmentFilters {
		return search.SegmentFilters{ExactTerms: []search.Term{{Field: "item_id", Value: search.FlexString(item)}}}
	}

	for _, tc := range []struct {
		item, word string
		time       float64
		text       string
	}{
		{"clip", "ferry", 0, "the ferry leaves"},
		{"clip", "harbour", 4, "harbour lights"},
		{"talk", "disposed", 0.21, "he was not an ill disposed young man"},
		{"talk", "amiable", 5.21, "he might even have been made amiable himself"},
	} {
		got := find(tc.word, of(tc.item))
		if len(got) != 1 || got[0].Time != tc.time || len(got[0].Summary.Transcript) != 1 || got[0].Summary.Transcript[0].Text != tc.text {
			t.Errorf("%s in %s: %+v", tc.word, tc.item, got)
		}
	}
	seg, err := eng.GetSegment(ctx, "clip-4000", all)
	if err != nil || seg.Thumbnail == nil || len(seg.Summary.Transcript) != 1 ||
		seg.Summary.Transcript[0] != (search.SegmentTranscript{Text: "harbour lights", Source: "sidecar", Language: "en", Start: 4.5, End: 6}) {
		t.Fatalf("frame with a cue: %+v %v", seg, err)
	}
	if got := find("", of("talk")); len(got) != 2 || got[0].ID != "talk-210" || got[1].ID != "talk-5210" || got[0].Thumbnail != nil {
		t.Fatalf("segments of an audio file: %+v", got)
	}
	speech := search.SegmentFilters{ExactTerms: []search.Term{{Field: "summary.transcript.source", Value: "speech"}},
		Ranges: []search.Range{{Field: "summary.transcript.start_at", From: "5"}}}
	if got := find("", speech); len(got) != 1 || got[0].ID != "talk-5210" {
		t.Fatalf("filter on source and start: %+v", got)
	}

	// The caption deleted, its segments go at the next indexing; the
	// frames stay, without it.
	db.Where("item_id IN ('clip', 'talk')").Delete(&models.Caption{})
	search.MarkDirty(db, "clip", "talk")
	if _, err := search.Drain(ctx, db, eng, 10); err != nil {
		t.Fatal(err)
	}
	if got := find("", of("talk")); len(got) != 0 {
		t.Fatalf("segments of deleted captions: %+v", got)
	}
	if got := find("", of("clip")); len(got) != 2 || len(got[1].Summary.Transcript) != 0 {
		t.Fatalf("frames after the caption went: %+v", got)
	}
}
