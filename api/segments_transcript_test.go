package api

import (
	"context"
	"testing"

	"github.com/metaharvest/metaharvest/search"
)

// A caption uploaded through the api is linked to the item's segments by
// time at the next indexing: POST /api/data/segments/search finds its words
// at the frame whose stretch they fall in, or at a segment of their own
// beyond the frames' reach, and GET /api/data/segments/{id} shows them in
// summary.transcript (both validated against openapi.yaml, as every
// response here is). Deleted, the caption leaves the segments.
func TestSegmentsCarryCaptions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	eng, err := search.Open(search.Config{DB: e.db})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Search = eng
	ctx := context.Background()
	drain := func() {
		t.Helper()
		if _, err := search.Drain(ctx, e.db, eng, 10); err != nil {
			t.Fatal(err)
		}
	}
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "media"))["id"].(string)
	item := e.insertItem(locID, "media", "clip.mp4")
	if err := e.db.Exec(`INSERT INTO segment_parts (item_id, extractor, time_ms, summary) VALUES (?, 'video_main_frames', 0, '{}'), (?, 'video_main_frames', 4000, '{}')`,
		item, item).Error; err != nil {
		t.Fatal(err)
	}
	up := e.uploadCaption(e.adminToken, item, "clip.en.srt", "1\n00:00:01,000 --> 00:00:02,000\nThe ferry leaves at noon\n\n"+
		"2\n00:00:04,500 --> 00:00:06,000\nHarbour lights\n\n3\n00:00:12,000 --> 00:00:13,000\nThe lighthouse beam\n", nil).status(201).json()
	drain()

	find := func(word string, only ...string) []any {
		t.Helper()
		body := map[string]any{"query": word, "filters": map[string]any{"exact_terms": []map[string]any{{"field": "item_id", "value": item}}}}
		if len(only) > 0 {
			body["only"] = only
		}
		res, _ := e.do("POST", "/api/data/segments/search", e.adminToken, body).status(200).json()["results"].([]any)
		return res
	}
	for word, want := range map[string]float64{"ferry": 0, "harbour": 4, "lighthouse": 12} {
		res := find(word)
		if len(res) != 1 {
			t.Fatalf("%s: %v", word, res)
		}
		seg := res[0].(map[string]any)["result"].(map[string]any)
		if seg["time"] != want {
			t.Errorf("%s at %v, want %v", word, seg["time"], want)
		}
	}
	got := e.do("GET", "/api/data/segments/"+item+"-12000", e.adminToken, nil).status(200).json()
	tr, _ := got["summary"].(map[string]any)["transcript"].([]any)
	if len(tr) != 1 {
		t.Fatalf("segment of a cue: %v", got)
	}
	entry := tr[0].(map[string]any)
	if entry["text"] != "The lighthouse beam" || entry["source"] != "uploaded" || entry["language"] != "en" ||
		entry["start_at"] != 12.0 || entry["end_at"] != 13.0 || got["thumbnail"] != nil {
		t.Fatalf("segment of a cue: %v", got)
	}
	// only names a part of the transcript: the rest of each entry is left out.
	res := find("harbour", "summary.transcript.text")
	if seg := res[0].(map[string]any)["result"].(map[string]any); len(seg["summary"].(map[string]any)["transcript"].([]any)[0].(map[string]any)) != 1 {
		t.Fatalf("only: %v", seg)
	}

	e.do("DELETE", "/api/data/v3/items/"+item+"/captions?caption_id="+up["id"].(string), e.adminToken, nil).status(200)
	drain()
	if res := find("harbour"); len(res) != 0 {
		t.Fatalf("a deleted caption still found: %v", res)
	}
	if res := find(""); len(res) != 2 {
		t.Fatalf("frames after the caption went: %v", res)
	}
}
