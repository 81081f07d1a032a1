package api

import (
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

type jobStatusBody struct {
	RequestID  string         `json:"request_id"`
	State      string         `json:"state"`
	Skipped    string         `json:"skipped"`
	Counts     map[string]int `json:"counts"`
	StartedAt  *time.Time     `json:"started_at"`
	FinishedAt *time.Time     `json:"finished_at"`
	Extractors []string       `json:"extractors"`
}

func (e *env) jobStatus(requestID string) jobStatusBody {
	e.t.Helper()
	var a, b jobStatusBody
	e.do("GET", "/api/control/harvest/"+requestID, e.adminToken, nil).status(200).decode(&a)
	e.do("GET", "/api/data/v3/activity/request/"+requestID, e.adminToken, nil).status(200).decode(&b)
	if a.State != b.State || a.RequestID != b.RequestID || a.Counts["harvested"] != b.Counts["harvested"] {
		e.t.Fatalf("the two status routes differ: %+v / %+v", a, b)
	}
	return a
}

// A harvest job can be read by its id (issue 9: both routes were 404), and
// its state follows what the workers record: queued, walking, harvesting,
// done, with counts and times; a walk that fails makes it failed; a cancel
// makes it cancelled.
func TestHarvestJobStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	locID, ctrID := w.location("loc1", nil, nil)
	start := func() string {
		t.Helper()
		r := e.do("POST", "/api/control/harvest", e.adminToken, map[string]any{"location_id": locID, "container_id": ctrID,
			"ignore_recently_walked": true, "extractors": []string{"hashes"}}).status(202).json()
		id := r["request_id"].(string)
		if r["status_url"] != "/api/control/harvest/"+id || r["skipped"] != nil {
			t.Fatalf("202 body %v", r)
		}
		return id
	}
	id := start()
	st := e.jobStatus(id)
	if st.State != "queued" || st.StartedAt != nil || st.FinishedAt != nil || st.Skipped != "" ||
		strings.Join(st.Extractors, ",") != "store,mime_type,hashes" {
		t.Fatalf("new job: %+v", st)
	}
	var job models.Job
	e.db.Where("request_id = ?", id).Take(&job)

	// A walk page listing 5 files, 4 of them to harvest.
	w.act(job, models.ActivityWalk, "", "media", "")
	e.db.Model(&job).Updates(map[string]any{"walked_count": 5, "enqueued_count": 4})
	if st = e.jobStatus(id); st.State != "walking" || st.StartedAt == nil || st.Counts["walked"] != 5 {
		t.Fatalf("walking: %+v", st)
	}
	e.db.Model(&job).Update("walk_complete", true)
	items := []models.Item{w.item(locID, ctrID, "a.jpg"), w.item(locID, ctrID, "b.jpg"), w.item(locID, ctrID, "c.jpg"), w.item(locID, ctrID, "d.jpg")}
	w.act(job, models.ActivityHarvestEnd, items[0].ID, "a.jpg", "")
	w.act(job, models.ActivityHarvestEnd, items[1].ID, "b.jpg", "1 extractor(s) failed: hashes")
	if st = e.jobStatus(id); st.State != "harvesting" || st.FinishedAt != nil || st.Counts["harvested"] != 1 || st.Counts["failed"] != 1 {
		t.Fatalf("harvesting: %+v", st)
	}
	w.act(job, models.ActivityHarvestEnd, items[2].ID, "c.jpg", "")
	// An item found unchanged finishes with nothing run.
	w.create(&models.Activity{TS: time.Now().UTC(), Kind: models.ActivityHarvestEnd, RequestID: id, ItemID: items[3].ID,
		Name: "d.jpg", Source: "unchanged since the last harvest", Extractors: models.Strings{}})
	st = e.jobStatus(id)
	want := map[string]int{"walked": 5, "enqueued": 4, "harvested": 2, "failed": 1, "skipped": 2}
	for k, v := range want {
		if st.Counts[k] != v {
			t.Errorf("done: counts %v, want %v", st.Counts, want)
			break
		}
	}
	if st.State != "done" || st.FinishedAt == nil || st.StartedAt == nil || st.FinishedAt.Before(*st.StartedAt) {
		t.Fatalf("done: %+v", st)
	}

	// A walk that cannot list the container fails the job.
	id2 := start()
	var job2 models.Job
	e.db.Where("request_id = ?", id2).Take(&job2)
	w.act(job2, models.ActivityWalk, "", "media", "container media not found in storage")
	e.db.Model(&job2).Updates(map[string]any{"walk_complete": true, "error_count": gorm.Expr("error_count + 1")})
	if st = e.jobStatus(id2); st.State != "failed" || st.FinishedAt == nil {
		t.Fatalf("failed walk: %+v", st)
	}

	// Cancelled.
	id3 := start()
	e.do("POST", "/api/control/harvest/"+id3+"/cancel", e.adminToken, nil).status(200)
	if st = e.jobStatus(id3); st.State != "cancelled" || st.FinishedAt == nil {
		t.Fatalf("cancelled: %+v", st)
	}

	// Unknown ids are 404; a job the caller may not see is 403.
	e.do("GET", "/api/control/harvest/nope", e.adminToken, nil).status(404)
	e.do("GET", "/api/data/v3/activity/request/nope", e.adminToken, nil).status(404)
	hidLoc, hidCtr := w.location("hidden", []string{"g-hidden"}, nil)
	hidden := w.job("req-hidden", hidLoc, hidCtr, "", time.Now())
	_, outsider := e.userWithScopes("outsider@example.com", "activity:read")
	e.do("GET", "/api/control/harvest/"+hidden.RequestID, outsider, nil).status(403)
	e.do("GET", "/api/control/harvest/"+id, outsider, nil).status(200)
}

// A harvest of a container walked less than a minute ago answers 202 saying
// it was skipped, and its job says so too (issue 9: it silently did
// nothing).
func TestHarvestOfRecentlyWalkedContainerSaysSkipped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	locID, ctrID := w.location("loc1", nil, nil)
	e.db.Model(&models.Container{}).Where("id = ?", ctrID).Updates(map[string]any{"last_walked": time.Now().Add(-5 * time.Second),
		"request_id": "an-earlier-walk"})
	r := e.do("POST", "/api/control/harvest", e.adminToken, map[string]any{"location_id": locID, "container_id": ctrID}).status(202).json()
	if r["skipped"] != "recently_walked" || !strings.Contains(r["message"].(string), "ignore_recently_walked") {
		t.Fatalf("202 body %v", r)
	}
	st := e.jobStatus(r["request_id"].(string))
	if st.State != "done" || st.Skipped != "recently_walked" || st.FinishedAt == nil || st.Counts["walked"] != 0 {
		t.Fatalf("skipped job: %+v", st)
	}
	// With ignore_recently_walked the walk happens.
	r = e.do("POST", "/api/control/harvest", e.adminToken, map[string]any{"location_id": locID, "container_id": ctrID,
		"ignore_recently_walked": true}).status(202).json()
	if r["skipped"] != nil {
		t.Fatalf("ignore_recently_walked: %v", r)
	}
	if st := e.jobStatus(r["request_id"].(string)); st.State != "queued" || st.Skipped != "" {
		t.Fatalf("walked job: %+v", st)
	}
}

// air-api-sample's harvest sends 48 extractor names, brand-prefixed ones
// and provider extractors (gms2t, gmlogos) among them: 202 (issue 9: 400
// unknown extractors), the aliases resolved to the extractors the binary
// links, unknown names still 400.
func TestHarvestAcceptsOriginalClientExtractorNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	locID, ctrID := w.location("loc1", nil, nil)
	names := []string{
		"archive", "audioinfo", "audio_previews", "audiopeak", "black_scenes", "caption_files",
		"captionsv2", "slates", "gm_color_bars", "credits", "csv", "dbf", "gm_digital_slates",
		"document_pages", "dpx", "drm", "email", "captions", "exiv2", "fdx", "geocoding",
		"gm_audio_classification", "gm_faces", "hashes", "html", "json", "gmlanguage", "gmlogos",
		"m2ts", "mediainfo", "mime_type", "gmocr", "officex", "pdf", "gm_silence", "gms2t",
		"gmsports", "gm_start_end", "stow", "gm_texted", "gm_textless", "thumbnailer", "tokens",
		"video_main_frames", "video_previews", "volumedetect", "weather", "xml",
	}
	r := e.do("POST", "/api/control/harvest", e.adminToken, map[string]any{"location_id": locID, "container_id": ctrID,
		"extractors": names, "profile_id": "default", "override_extractors": true, "new_extractors_only": false,
		"force": true, "ignore_recently_walked": true, "priority": 1}).status(202).json()
	st := e.jobStatus(r["request_id"].(string))
	got := strings.Join(st.Extractors, ",")
	for _, want := range []string{"vendor_faces", "tesseract", "vendorsports", "speech_to_text", "logos"} {
		if !strings.Contains(","+got+",", ","+want+",") {
			t.Errorf("job extractors lack %s: %s", want, got)
		}
	}
	for _, alias := range []string{"gm_faces", "gmocr", "stow", "gms2t", "gmlogos"} {
		if strings.Contains(","+got+",", ","+alias+",") {
			t.Errorf("job extractors keep the alias %s: %s", alias, got)
		}
	}
	// The 48 names, and text, which tokens needs.
	if !strings.HasPrefix(got, "store,mime_type,") || len(st.Extractors) != 49 {
		t.Errorf("job extractors (%d): %s", len(st.Extractors), got)
	}
	bad := e.do("POST", "/api/control/harvest", e.adminToken, map[string]any{"location_id": locID, "container_id": ctrID,
		"extractors": []string{"gm_nonsense"}}).status(400)
	if !strings.Contains(bad.field("extractors"), "gm_nonsense") {
		t.Fatalf("unknown name: %s", bad.Body)
	}

	// Profiles and settings know the aliases too.
	p := e.do("POST", "/api/data/extractor-profiles", e.adminToken, map[string]any{"name": "old names",
		"extractors": []string{"gm_faces", "stow", "gms2t", "vendor_faces"}}).status(201).json()
	if got := p["extractors"]; strings.Join(toStrings(got), ",") != "speech_to_text,store,vendor_faces" {
		t.Fatalf("profile extractors %v", got)
	}
	s := e.do("PUT", "/api/data/extractors/gmocr", e.adminToken, map[string]any{"enabled": true}).status(200).json()
	if s["name"] != "tesseract" {
		t.Fatalf("PUT gmocr: %v", s)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// GET /api/control/harvest lists the visible jobs newest first: running
// ones (not cancelled, updated within a day, walk or files unfinished) by
// default, every one with state=all, at most limit.
func TestListHarvestJobs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	locID, ctrID := w.location("loc1", nil, nil)
	hidLoc, hidCtr := w.location("hidden", []string{"g-hidden"}, nil)
	now := time.Now().UTC()
	job := func(id, loc, ctr string, age time.Duration, change map[string]any) models.Job {
		t.Helper()
		j := w.job(id, loc, ctr, "", now.Add(-age))
		if change != nil {
			e.db.Model(&j).Updates(change)
		}
		return j
	}
	job("walking", locID, ctrID, time.Minute, nil)
	done := job("done", locID, ctrID, 2*time.Minute, map[string]any{"walk_complete": true, "enqueued_count": 1})
	w.act(done, models.ActivityHarvestEnd, "i1", "a.jpg", "")
	half := job("half", locID, ctrID, 3*time.Minute, map[string]any{"walk_complete": true, "enqueued_count": 2})
	w.act(half, models.ActivityHarvestEnd, "i2", "b.jpg", "")
	job("cancelled", locID, ctrID, 4*time.Minute, map[string]any{"cancelled": true})
	job("stale", locID, ctrID, 48*time.Hour, nil)
	job("secret", hidLoc, hidCtr, 5*time.Minute, nil)
	_, outsider := e.userWithScopes("outsider@example.com", "activity:read")

	list := func(token, q string) string {
		t.Helper()
		var body struct {
			State string          `json:"state"`
			Jobs  []jobStatusBody `json:"jobs"`
		}
		e.do("GET", "/api/control/harvest"+q, token, nil).status(200).decode(&body)
		var ids []string
		for _, j := range body.Jobs {
			ids = append(ids, j.RequestID+":"+j.State)
		}
		return body.State + " " + strings.Join(ids, ",")
	}
	for _, tc := range []struct{ token, q, want string }{
		{e.adminToken, "", "running walking:queued,half:harvesting,secret:queued"},
		{e.adminToken, "?state=running", "running walking:queued,half:harvesting,secret:queued"},
		{outsider, "", "running walking:queued,half:harvesting"},
		{e.adminToken, "?state=all", "all walking:queued,done:done,half:harvesting,cancelled:cancelled,secret:queued,stale:queued"},
		{outsider, "?state=all", "all walking:queued,done:done,half:harvesting,cancelled:cancelled,stale:queued"},
		{e.adminToken, "?state=all&limit=2", "all walking:queued,done:done"},
	} {
		if got := list(tc.token, tc.q); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.q, got, tc.want)
		}
	}
	for _, q := range []string{"?state=done", "?limit=0", "?limit=501", "?limit=x"} {
		e.do("GET", "/api/control/harvest"+q, e.adminToken, nil).status(400)
	}
}
