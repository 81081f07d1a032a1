package api

import (
	"math"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

type dataSummaryBody struct {
	TotalFiles          int64     `json:"total_files"`
	DeletedFiles        int64     `json:"deleted_files"`
	TotalPages          int64     `json:"total_pages"`
	TotalSize           int64     `json:"total_size"`
	VideoRuntimeSeconds float64   `json:"video_runtime_seconds"`
	LastHarvest         time.Time `json:"last_harvest"`
}

func TestDataSummary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const path = "/api/data/summary/data"

	// Nothing harvested yet: zeros and the zero timestamp.
	var got dataSummaryBody
	r := e.do("GET", path, e.adminToken, nil).status(200)
	r.decode(&got)
	if got != (dataSummaryBody{}) || r.json()["last_harvest"] != "0001-01-01T00:00:00Z" {
		t.Fatalf("empty summary %s", r.Body)
	}

	w := newActWorld(e)
	loc, ctr := w.location("loc-sum", nil, nil)
	hidLoc, hidCtr := w.location("loc-sum-hidden", []string{"g-sum"}, nil)
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(h int) *time.Time { v := t0.Add(time.Duration(h) * time.Hour); return &v }
	add := func(locID, ctrID, name, mime string, size int64, meta map[string]any, harvested, deleted *time.Time) {
		t.Helper()
		w.create(&models.Item{ID: models.ItemID(ctrID, name), LocationID: locID, ContainerID: ctrID, Path: name, Name: name,
			Size: size, MimeType: mime, Metadata: models.MustJSON(meta), LastHarvested: harvested, DeletedAt: deleted})
	}
	add(loc, ctr, "clip.mp4", "video/mp4", 1000, map[string]any{"mediainfo": map[string]any{"duration": 12.5}}, at(1), nil)
	add(loc, ctr, "song.mp3", "audio/mpeg", 500, map[string]any{"mediainfo": map[string]any{"duration": "7.25"}}, at(2), nil)
	// Both page extractors ran on one document: counted once.
	add(loc, ctr, "a.pdf", "application/pdf", 300, map[string]any{"pdf": map[string]any{"page_count": 10}, "document_pages": map[string]any{"page_count": 10}}, at(1), nil)
	add(loc, ctr, "b.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 200,
		map[string]any{"officex": map[string]any{"page_count": "3"}}, nil, nil)
	add(loc, ctr, "c.pdf", "application/pdf", 50, map[string]any{"pdf": map[string]any{"page_count": "many"}}, nil, nil)
	// An image with a duration does not add runtime; malformed metadata adds nothing.
	add(loc, ctr, "still.jpg", "image/jpeg", 20, map[string]any{"mediainfo": map[string]any{"duration": 3}}, nil, nil)
	add(loc, ctr, "odd.webm", "video/webm", 1, map[string]any{"mediainfo": map[string]any{"duration": map[string]any{"a": 1}},
		"pdf": "str", "document_pages": []any{1}}, nil, nil)
	add(loc, ctr, "neg.mov", "video/quicktime", 2, map[string]any{"mediainfo": map[string]any{"duration": -5}}, nil, nil)
	// A deleted item counts only as deleted, but its harvest is the latest.
	add(loc, ctr, "gone.mp4", "video/mp4", 9999, map[string]any{"mediainfo": map[string]any{"duration": 100},
		"pdf": map[string]any{"page_count": 50}}, at(5), at(6))
	// An item in a location restricted to a group.
	add(hidLoc, hidCtr, "secret.mov", "video/quicktime", 7000, map[string]any{"mediainfo": map[string]any{"duration": 1000},
		"document_pages": map[string]any{"page_count": 4}}, at(9), nil)

	visible := dataSummaryBody{TotalFiles: 8, DeletedFiles: 1, TotalPages: 13, TotalSize: 1000 + 500 + 300 + 200 + 50 + 20 + 1 + 2,
		VideoRuntimeSeconds: 19.75, LastHarvest: *at(5)}
	all := visible
	all.TotalFiles, all.TotalPages, all.TotalSize, all.VideoRuntimeSeconds, all.LastHarvest = 9, 17, visible.TotalSize+7000, 1019.75, *at(9)

	check := func(tok string, want dataSummaryBody) {
		t.Helper()
		var got dataSummaryBody
		e.do("GET", path, tok, nil).status(200).decode(&got)
		if math.Abs(got.VideoRuntimeSeconds-want.VideoRuntimeSeconds) > 1e-9 {
			t.Fatalf("runtime %v, want %v", got.VideoRuntimeSeconds, want.VideoRuntimeSeconds)
		}
		got.VideoRuntimeSeconds = want.VideoRuntimeSeconds
		if !got.LastHarvest.Equal(want.LastHarvest) {
			t.Fatalf("last_harvest %v, want %v", got.LastHarvest, want.LastHarvest)
		}
		got.LastHarvest = want.LastHarvest
		if got != want {
			t.Fatalf("summary %+v\nwant    %+v", got, want)
		}
	}
	check(e.adminToken, all)
	_, outsider := e.userWithScopes("sum-out@example.com", "summary:read")
	check(outsider, visible)
	memberID, member := e.userWithScopes("sum-in@example.com", "summary:read")
	w.create(&models.UserGroup{UserID: memberID, GroupID: "g-sum"})
	check(member, all)
}

// The page counts the summary adds up are fields the extractors declare
// (the summary once read pdf.pages, which no extractor writes, and counted
// no page at all).
func TestDataSummaryReadsDeclaredPageCounts(t *testing.T) {
	declared := map[string]extractors.FieldType{}
	for _, f := range extractors.Default.Fields() {
		declared[f.Path] = f.Type
	}
	for _, f := range store.PageCountFields {
		if declared[f] != extractors.TypeNumber {
			t.Errorf("%s is not a number field an extractor declares", f)
		}
	}
}
