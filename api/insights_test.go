package api

import (
	"reflect"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
)

func TestInsights(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-ins", nil, nil)
	hidLoc, hidCtr := w.location("loc-ins-hidden", []string{"g-ins"}, nil)
	ctrLoc, hidCtrInLoc := w.location("loc-ins-ctr", nil, []string{"g-ins-ctr"})
	now := time.Now().UTC()
	t1, t2, t3 := now.Add(-3*time.Hour), now.Add(-2*time.Hour), now.Add(-time.Hour)
	add := func(locID, ctrID, name, mime string, size int64, harvested, deleted *time.Time, failed ...string) {
		t.Helper()
		id := models.ItemID(ctrID, name)
		runs := map[string]models.ExtractorRun{"store": {RanAt: now}}
		for _, ex := range failed {
			runs[ex] = models.ExtractorRun{Error: ex + " failed", RanAt: now}
		}
		w.create(&models.Item{ID: id, LocationID: locID, ContainerID: ctrID, Path: name, Name: name, Size: size,
			MimeType: mime, Metadata: models.MustJSON(map[string]any{}), Results: models.MustJSON(runs),
			LastHarvested: harvested, DeletedAt: deleted})
	}
	add(loc, ctr, "a.mp4", "video/mp4", 100, &t1, nil, "exiv2", "mediainfo")
	add(loc, ctr, "b.jpg", "image/jpeg", 20, &t1, nil, "exiv2")
	add(loc, ctr, "c.pdf", "application/pdf", 5, nil, nil, "exiv2", "pdf")
	add(loc, ctr, "gone.jpg", "image/jpeg", 999, &t2, &t2, "exiv2", "tesseract") // deleted: harvest counts, errors do not
	add(hidLoc, hidCtr, "h.mp3", "audio/mpeg", 50, &t3, nil, "mediainfo", "whisper")
	add(ctrLoc, hidCtrInLoc, "k.mp3", "audio/mpeg", 7, &t3, nil, "whisper")

	jobAt := func(id, locID, ctrID string, created time.Time) models.Job {
		t.Helper()
		return w.job(id, locID, ctrID, "", created)
	}
	j1 := jobAt("ins-1", loc, ctr, now.Add(-time.Hour))
	jobAt("ins-2", loc, ctr, now.Add(-23*time.Hour))
	jobAt("ins-old", loc, ctr, now.Add(-25*time.Hour))
	jh := jobAt("ins-hidden", hidLoc, hidCtr, now.Add(-time.Hour))
	jc := jobAt("ins-ctr", ctrLoc, hidCtrInLoc, now.Add(-time.Hour))
	w.ts = now.Add(-time.Hour)
	w.act(j1, models.ActivityExtractor, "x", "exiv2", "bad")
	w.act(j1, models.ActivityExtractor, "x", "exiv2", "")
	w.act(j1, models.ActivityWalk, "", "", "listing failed")
	w.act(j1, models.ActivityHarvestEnd, "x", "", "1 extractor(s) failed: exiv2") // summary row, not counted
	w.act(jh, models.ActivityExtractor, "y", "whisper", "bad")
	w.act(jc, models.ActivityExtractor, "z", "whisper", "bad")
	w.ts = now.Add(-30 * time.Hour)
	w.act(j1, models.ActivityExtractor, "x", "exiv2", "old")

	type body struct {
		TotalFiles int64                 `json:"total_files"`
		TotalSize  int64                 `json:"total_size"`
		ByType     []typeCountJSON       `json:"by_type"`
		ByLocation []locationInsightJSON `json:"by_location"`
		Harvest    harvestInsightJSON    `json:"harvest"`
		TopErrors  []extractorErrorsJSON `json:"top_extractor_errors"`
	}
	get := func(tok string) body {
		t.Helper()
		var b body
		e.do("GET", "/api/data/v3/insights", tok, nil).status(200).decode(&b)
		return b
	}
	round := func(t time.Time) time.Time { return t.Round(time.Millisecond) }

	admin := get(e.adminToken)
	wantAdmin := body{TotalFiles: 5, TotalSize: 182,
		ByType: []typeCountJSON{{"video", 1, 100}, {"audio", 2, 57}, {"image", 1, 20}, {"document", 1, 5}, {"other", 0, 0}},
		ByLocation: []locationInsightJSON{{loc, loc, 3, 125}, {hidLoc, hidLoc, 1, 50}, {ctrLoc, ctrLoc, 1, 7},
			{"uploadstore", "Upload store", 0, 0}},
		Harvest:   harvestInsightJSON{JobsLast24h: 4, ErrorsLast24h: 4, LastHarvest: round(t3)},
		TopErrors: []extractorErrorsJSON{{"exiv2", 3}, {"mediainfo", 2}, {"whisper", 2}, {"pdf", 1}},
	}
	admin.Harvest.LastHarvest = round(admin.Harvest.LastHarvest)
	if !reflect.DeepEqual(admin, wantAdmin) {
		t.Fatalf("admin insights %+v\nwant           %+v", admin, wantAdmin)
	}

	_, outsider := e.userWithScopes("ins-out@example.com", "items:read")
	out := get(outsider)
	wantOut := body{TotalFiles: 3, TotalSize: 125,
		ByType:     []typeCountJSON{{"video", 1, 100}, {"audio", 0, 0}, {"image", 1, 20}, {"document", 1, 5}, {"other", 0, 0}},
		ByLocation: []locationInsightJSON{{loc, loc, 3, 125}, {ctrLoc, ctrLoc, 0, 0}, {"uploadstore", "Upload store", 0, 0}},
		Harvest:    harvestInsightJSON{JobsLast24h: 2, ErrorsLast24h: 2, LastHarvest: round(t2)},
		TopErrors:  []extractorErrorsJSON{{"exiv2", 3}, {"mediainfo", 1}, {"pdf", 1}},
	}
	out.Harvest.LastHarvest = round(out.Harvest.LastHarvest)
	if !reflect.DeepEqual(out, wantOut) {
		t.Fatalf("outsider insights %+v\nwant              %+v", out, wantOut)
	}

	// Nothing harvested: the zero timestamp, as in the data summary.
	e2 := newEnv(t)
	r := e2.do("GET", "/api/data/v3/insights", e2.adminToken, nil).status(200).json()
	if r["harvest"].(map[string]any)["last_harvest"] != "0001-01-01T00:00:00Z" || r["total_files"] != float64(0) ||
		len(r["top_extractor_errors"].([]any)) != 0 {
		t.Fatalf("empty platform %v", r)
	}
}
