package api

import (
	"reflect"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

type typeCountsBody struct {
	Types []typeCountJSON `json:"types"`
}

func TestItemTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-types", nil, nil)
	hidLoc, hidCtr := w.location("loc-types-hidden", []string{"g-types"}, nil)
	gone := time.Now()
	add := func(locID, ctrID, name, mime string, size int64, deleted *time.Time) {
		t.Helper()
		w.create(&models.Item{ID: models.ItemID(ctrID, name), LocationID: locID, ContainerID: ctrID, Path: name, Name: name,
			Size: size, MimeType: mime, Metadata: models.MustJSON(map[string]any{}), DeletedAt: deleted})
	}
	add(loc, ctr, "a.mp4", "video/mp4", 100, nil)
	add(loc, ctr, "b.mov", "Video/QuickTime; codecs=x", 200, nil)
	add(loc, ctr, "c.mp3", "audio/mpeg", 10, nil)
	add(loc, ctr, "d.jpg", "image/jpeg", 5, nil)
	add(loc, ctr, "e.pdf", "application/pdf", 7, nil)
	add(loc, ctr, "f.txt", "text/plain; charset=utf-8", 1, nil)
	add(loc, ctr, "g.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 3, nil)
	add(loc, ctr, "h.zip", "application/zip", 50, nil)
	add(loc, ctr, "i", "", 2, nil)
	add(loc, ctr, "gone.mp4", "video/mp4", 9999, &gone)
	add(hidLoc, hidCtr, "secret.mp4", "video/mp4", 1000, nil)
	add(hidLoc, hidCtr, "secret.png", "image/png", 4, nil)

	visible := []typeCountJSON{{"video", 2, 300}, {"audio", 1, 10}, {"image", 1, 5}, {"document", 3, 11}, {"other", 2, 52}}
	all := []typeCountJSON{{"video", 3, 1300}, {"audio", 1, 10}, {"image", 2, 9}, {"document", 3, 11}, {"other", 2, 52}}
	check := func(tok string, want []typeCountJSON) {
		t.Helper()
		var got typeCountsBody
		e.do("GET", "/api/data/v3/items/types", tok, nil).status(200).decode(&got)
		if !reflect.DeepEqual(got.Types, want) {
			t.Fatalf("types %+v\nwant  %+v", got.Types, want)
		}
	}
	check(e.adminToken, all)
	_, outsider := e.userWithScopes("types-out@example.com", "items:read")
	check(outsider, visible)
	memberID, member := e.userWithScopes("types-in@example.com", "items:read")
	w.create(&models.UserGroup{UserID: memberID, GroupID: "g-types"})
	check(member, all)

	// An empty platform lists every type with zeros.
	e2 := newEnv(t)
	var empty typeCountsBody
	e2.do("GET", "/api/data/v3/items/types", e2.adminToken, nil).status(200).decode(&empty)
	if len(empty.Types) != 5 || empty.Types[0] != (typeCountJSON{Type: "video"}) || empty.Types[4] != (typeCountJSON{Type: "other"}) {
		t.Fatalf("empty platform %+v", empty.Types)
	}
}

// The answers' shapes, as clients read them.
type (
	typeCountJSON struct {
		Type  string `json:"type"`
		Count int64  `json:"count"`
		Size  int64  `json:"size"`
	}
	locationInsightJSON struct {
		LocationID string `json:"location_id"`
		Name       string `json:"name"`
		Count      int64  `json:"count"`
		Size       int64  `json:"size"`
	}
	harvestInsightJSON struct {
		JobsLast24h   int64     `json:"jobs_last_24h"`
		ErrorsLast24h int64     `json:"errors_last_24h"`
		LastHarvest   time.Time `json:"last_harvest"`
	}
	extractorErrorsJSON struct {
		Name      string `json:"name"`
		NumErrors int64  `json:"num_errors"`
	}
)
