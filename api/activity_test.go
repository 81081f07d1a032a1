package api

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// actMD5 is the error hash a worker stores: MD5 hex of the message.
func actMD5(msg string) string {
	sum := md5.Sum([]byte(msg))
	return hex.EncodeToString(sum[:])
}

// actWorld builds storage, jobs and activity rows directly, as the workers
// would have written them.
type actWorld struct {
	t   *testing.T
	e   *env
	seq int
	ts  time.Time
}

func newActWorld(e *env) *actWorld {
	return &actWorld{t: e.t, e: e, ts: time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)}
}

func (w *actWorld) create(v any) {
	w.t.Helper()
	db := w.e.db
	if _, ok := v.(*models.Activity); ok {
		db = db.Table(models.ActivitiesTable) // read from a view, written to the table
	}
	if err := db.Create(v).Error; err != nil {
		w.t.Fatalf("create %T: %v", v, err)
	}
}

// location creates a location with one container; groups on either make
// them visible to members only.
func (w *actWorld) location(id string, locGroups, ctrGroups []string) (locID, ctrID string) {
	w.t.Helper()
	w.create(&models.Location{ID: id, Kind: "filesystem", Name: id, Config: models.MustJSON(map[string]string{"path": "/srv/" + id})})
	ctrID = models.ContainerID(id, "media")
	w.create(&models.Container{ID: ctrID, LocationID: id, Name: "media", Enabled: true})
	for _, g := range locGroups {
		w.group(g)
		w.create(&models.LocationGroup{LocationID: id, GroupID: g})
	}
	for _, g := range ctrGroups {
		w.group(g)
		w.create(&models.ContainerGroup{ContainerID: ctrID, GroupID: g})
	}
	return id, ctrID
}

func (w *actWorld) group(id string) {
	w.t.Helper()
	if err := w.e.db.Exec(`INSERT INTO groups (id, name, description) VALUES (?, ?, '') ON CONFLICT DO NOTHING`, id, id).Error; err != nil {
		w.t.Fatal(err)
	}
}

func (w *actWorld) item(locID, ctrID, name string) models.Item {
	w.t.Helper()
	it := models.Item{ID: models.ItemID(ctrID, name), LocationID: locID, ContainerID: ctrID, Path: name, Name: name,
		Size: 1000, MimeType: "image/jpeg", Metadata: models.MustJSON(map[string]any{})}
	w.create(&it)
	return it
}

func (w *actWorld) job(id, locID, ctrID, itemID string, created time.Time) models.Job {
	w.t.Helper()
	j := models.Job{RequestID: id, JobType: "harvest", LocationID: locID, ContainerID: ctrID, ItemID: itemID,
		UserID: "someone", ProfileID: "default", Extractors: models.Strings{"store", "mime_type"},
		Options: models.MustJSON(map[string]any{}), Priority: 5, Created: created, Updated: created}
	w.create(&j)
	return j
}

// act writes one activity row with a strictly increasing timestamp.
func (w *actWorld) act(j models.Job, kind, itemID, name, errMsg string) {
	w.t.Helper()
	w.seq++
	w.ts = w.ts.Add(time.Second)
	hash := ""
	if errMsg != "" {
		hash = actMD5(errMsg)
	}
	w.create(&models.Activity{DedupeKey: fmt.Sprintf("t%d", w.seq), TS: w.ts, Kind: kind, RequestID: j.RequestID,
		LocationID: j.LocationID, ContainerID: j.ContainerID, HarvestID: j.RequestID, ProfileID: j.ProfileID,
		Extractors: j.Extractors, Name: name, Source: "test", ItemID: itemID, Count: 1, Bytes: 1000,
		Error: errMsg, ErrorHash: hash, Duration: int64(10 * w.seq)})
}

const (
	errExifA  = "exiv2: corrupt APP1 segment"
	errExifB  = "exiv2: unsupported byte order"
	errMediaC = "mediainfo: no streams found"
	errMediaD = "mediainfo: moov atom not found"
)

// mainJob is a job over 25 files where exiv2 fails on 12 files with one
// error and 3 with another, and mediainfo on 8 files with one error and 4
// with another. Items finish in name order.
func (w *actWorld) mainJob(locID, ctrID string) (models.Job, []models.Item) {
	w.t.Helper()
	j := w.job("req-main", locID, ctrID, "", time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC))
	var items []models.Item
	w.act(j, models.ActivityWalk, "", "", "")
	for k := range 25 {
		it := w.item(locID, ctrID, fmt.Sprintf("file-%02d.jpg", k))
		items = append(items, it)
		w.act(j, models.ActivityHarvestDownload, it.ID, it.Name, "")
		w.act(j, models.ActivityExtractor, it.ID, "store", "")
		w.act(j, models.ActivityExtractor, it.ID, "hashes", "")
		switch {
		case k < 12:
			w.act(j, models.ActivityExtractor, it.ID, "exiv2", errExifA)
		case k < 15:
			w.act(j, models.ActivityExtractor, it.ID, "exiv2", errExifB)
		default:
			w.act(j, models.ActivityExtractor, it.ID, "exiv2", "")
		}
		switch {
		case k >= 5 && k < 13:
			w.act(j, models.ActivityExtractor, it.ID, "mediainfo", errMediaC)
		case k >= 20 && k < 24:
			w.act(j, models.ActivityExtractor, it.ID, "mediainfo", errMediaD)
		default:
			w.act(j, models.ActivityExtractor, it.ID, "mediainfo", "")
		}
		w.act(j, models.ActivityHarvestEnd, it.ID, it.Name, "")
	}
	return j, items
}

// actPages follows next_page_token from the first page to the last, then
// previous_page_token back to the first, and returns the ids of each pass.
// tokenParam alternates spellings to prove both are accepted.
func actPages(t *testing.T, e *env, token, path, listKey, idKey string, limit int) (forward, backward []string) {
	t.Helper()
	ids := func(body map[string]any) []string {
		var out []string
		for _, x := range body[listKey].([]any) {
			out = append(out, fmt.Sprint(x.(map[string]any)[idKey]))
		}
		return out
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	url0 := fmt.Sprintf("%s%slimit=%d", path, sep, limit)
	body := e.do("GET", url0, token, nil).status(200).json()
	if body["previous_page_token"] != "" {
		t.Fatalf("first page has a previous token: %v", body["previous_page_token"])
	}
	var pages [][]string
	for n := 0; ; n++ {
		got := ids(body)
		if len(got) > limit {
			t.Fatalf("page of %d > limit %d", len(got), limit)
		}
		pages = append(pages, got)
		forward = append(forward, got...)
		next := body["next_page_token"].(string)
		if next == "" {
			break
		}
		param := []string{"page-token", "page_token"}[n%2]
		body = e.do("GET", url0+"&"+param+"="+url.QueryEscape(next), token, nil).status(200).json()
	}
	// Back from the last page: each previous page is the page before.
	for i := len(pages) - 1; i >= 0; i-- {
		backward = append(ids(body), backward...)
		prev := body["previous_page_token"].(string)
		if i == 0 {
			if prev != "" {
				t.Fatalf("first page reached backwards has a previous token %q", prev)
			}
			break
		}
		body = e.do("GET", url0+"&page_token="+url.QueryEscape(prev), token, nil).status(200).json()
		if got := ids(body); !slices.Equal(got, pages[i-1]) {
			t.Fatalf("previous page %v, want %v", got, pages[i-1])
		}
	}
	return forward, backward
}

func actNoDuplicates(t *testing.T, ids []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("duplicate %s in %v", id, ids)
		}
		seen[id] = true
	}
}

func TestActivityRequestReports(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-a", nil, nil)
	job, items := w.mainJob(loc, ctr)
	tok := e.adminToken
	base := "/api/data/v3/activity/request/" + job.RequestID

	// Extractors of the job with their error counts, by name.
	var ex struct {
		Extractors []extractorSummaryJSON `json:"extractors"`
	}
	e.do("GET", base+"/extractors", tok, nil).status(200).decode(&ex)
	want := []extractorSummaryJSON{
		{"exiv2", "Image Metadata (EXIF, IPTC, XMP)", 15},
		{"hashes", "Hashes", 0},
		{"mediainfo", "Media Info", 12},
		{"store", w.e.srv.displayName("store"), 0},
	}
	if !slices.Equal(ex.Extractors, want) {
		t.Fatalf("extractors %+v\nwant %+v", ex.Extractors, want)
	}

	// Errors of one extractor, grouped by hash, most files first.
	type errRow struct {
		Error     string `json:"error"`
		ErrorHash string `json:"error_hash"`
		NumFiles  int    `json:"num_files"`
	}
	var errs struct {
		Extractor     string   `json:"extractor"`
		ExtractorName string   `json:"extractor_name"`
		Errors        []errRow `json:"errors"`
		Next          string   `json:"next_page_token"`
		Prev          string   `json:"previous_page_token"`
	}
	e.do("GET", base+"/extractors/mediainfo", tok, nil).status(200).decode(&errs)
	if errs.Extractor != "mediainfo" || errs.ExtractorName != "Media Info" || errs.Next != "" || errs.Prev != "" ||
		!slices.Equal(errs.Errors, []errRow{{errMediaC, actMD5(errMediaC), 8}, {errMediaD, actMD5(errMediaD), 4}}) {
		t.Fatalf("mediainfo errors %+v", errs)
	}
	fwd, back := actPages(t, e, tok, base+"/extractors/exiv2", "errors", "error_hash", 1)
	if !slices.Equal(fwd, []string{actMD5(errExifA), actMD5(errExifB)}) || !slices.Equal(back, fwd) {
		t.Fatalf("exiv2 error pages %v / %v", fwd, back)
	}
	// A registered extractor that did not run has an empty report.
	e.do("GET", base+"/extractors/pdf", tok, nil).status(200).decode(&errs)
	if len(errs.Errors) != 0 || errs.ExtractorName != "PDF Text and Info" {
		t.Fatalf("pdf errors %+v", errs)
	}

	// Files of one error, by name, paged both ways with no gap or duplicate.
	files := base + "/extractors/exiv2/errors/" + actMD5(errExifA) + "/files"
	var fp struct {
		Files    []store.ActivityFile `json:"files"`
		NumFiles int                  `json:"num_files"`
	}
	e.do("GET", files, tok, nil).status(200).decode(&fp)
	if fp.NumFiles != 12 || len(fp.Files) != 10 || fp.Files[0] != (store.ActivityFile{ItemID: items[0].ID, Name: "file-00.jpg"}) {
		t.Fatalf("files page %+v", fp)
	}
	fwd, back = actPages(t, e, tok, files, "files", "name", 5)
	var wantNames []string
	for k := range 12 {
		wantNames = append(wantNames, fmt.Sprintf("file-%02d.jpg", k))
	}
	if !slices.Equal(fwd, wantNames) || !slices.Equal(back, wantNames) {
		t.Fatalf("error files %v / %v", fwd, back)
	}
	// The hash is accepted in upper case too.
	e.do("GET", base+"/extractors/exiv2/errors/"+strings.ToUpper(actMD5(errExifB))+"/files", tok, nil).status(200).decode(&fp)
	if fp.NumFiles != 3 || fp.Files[0].Name != "file-12.jpg" {
		t.Fatalf("errB files %+v", fp)
	}

	// Items the job harvested, in the order they finished, every page size.
	for _, limit := range []int{10, 7, 25, 1000} {
		fwd, back := actPages(t, e, tok, base+"/items", "files", "item_id", limit)
		actNoDuplicates(t, fwd)
		if len(fwd) != 25 || !slices.Equal(back, fwd) || fwd[0] != items[0].ID || fwd[24] != items[24].ID {
			t.Fatalf("items limit %d: %d items, back %d", limit, len(fwd), len(back))
		}
	}
	var ip struct {
		Files    []store.ActivityFile `json:"files"`
		NumFiles int                  `json:"num_files"`
	}
	e.do("GET", base+"/items?offset=20", tok, nil).status(200).decode(&ip)
	if ip.NumFiles != 25 || len(ip.Files) != 5 || ip.Files[0].Name != "file-20.jpg" {
		t.Fatalf("items offset 20: %+v", ip)
	}

	// Limits and tokens out of range.
	for _, q := range []string{"/items?limit=0", "/items?limit=1001", "/items?limit=x", "/items?offset=-1",
		"/items?page-token=!!", "/items?page_token=bm9wZQ", "/extractors/exiv2?limit=101",
		"/extractors/exiv2/errors/" + actMD5(errExifA) + "/files?limit=101", "/extractors/exiv2?page-token=LTE"} {
		if r := e.do("GET", base+q, tok, nil); r.Code != 400 {
			t.Errorf("%s: %d, want 400", q, r.Code)
		}
	}
	e.do("GET", base+"/extractors/exiv2?limit=100", tok, nil).status(200)

	// Unknown ids.
	for _, p := range []string{
		"/api/data/v3/activity/request/nope/extractors",
		"/api/data/v3/activity/request/nope/extractors/exiv2",
		"/api/data/v3/activity/request/nope/items",
		"/api/data/v3/activity/request/nope/extractors/exiv2/errors/" + actMD5(errExifA) + "/files",
		base + "/extractors/bogus",
		base + "/extractors/bogus/errors/" + actMD5(errExifA) + "/files",
		base + "/extractors/exiv2/errors/" + actMD5("never happened") + "/files",
		base + "/extractors/hashes/errors/" + actMD5(errExifA) + "/files",
	} {
		if r := e.do("GET", p, tok, nil); r.Code != 404 || r.errCode() != "not_found" {
			t.Errorf("%s: %d %s, want 404", p, r.Code, r.Body)
		}
	}
	if r := e.do("GET", base+"/extractors/exiv2/errors/xyz/files", tok, nil); r.Code != 400 || r.field("error_hash") == "" {
		t.Errorf("malformed hash: %d %s", r.Code, r.Body)
	}
}

func TestActivityBulkExtractors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-a", nil, nil)
	main, items := w.mainJob(loc, ctr)
	small := w.job("req-small", loc, ctr, items[3].ID, time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC))
	w.act(small, models.ActivityExtractor, items[3].ID, "hashes", "hashes: read: i/o timeout")
	hidLoc, hidCtr := w.location("loc-hidden", []string{"g-hidden"}, nil)
	hidden := w.job("req-hidden", hidLoc, hidCtr, "", time.Date(2024, 3, 3, 0, 0, 0, 0, time.UTC))
	w.act(hidden, models.ActivityExtractor, "", "hashes", "boom")

	type entry struct {
		RequestID  string                 `json:"request_id"`
		Extractors []extractorSummaryJSON `json:"extractors"`
	}
	var got []entry
	e.do("POST", "/api/data/v3/activity/bulk/extractors", e.adminToken,
		map[string]any{"jobs": []string{small.RequestID, "nope", main.RequestID, small.RequestID, hidden.RequestID}}).status(200).decode(&got)
	if len(got) != 5 {
		t.Fatalf("bulk: %+v", got)
	}
	for i, id := range []string{small.RequestID, "nope", main.RequestID, small.RequestID, hidden.RequestID} {
		if got[i].RequestID != id {
			t.Fatalf("bulk order: %d is %s, want %s", i, got[i].RequestID, id)
		}
	}
	if !slices.Equal(got[0].Extractors, []extractorSummaryJSON{{"hashes", "Hashes", 1}}) || !slices.Equal(got[3].Extractors, got[0].Extractors) ||
		len(got[1].Extractors) != 0 || len(got[2].Extractors) != 4 || got[2].Extractors[0].NumErrors != 15 || len(got[4].Extractors) != 1 {
		t.Fatalf("bulk: %+v", got)
	}

	// A non-admin outside the hidden location's group: that job answers like an unknown one.
	_, outsider := e.userWithScopes("bulk-out@example.com", "activity:read")
	e.do("POST", "/api/data/v3/activity/bulk/extractors", outsider,
		map[string]any{"jobs": []string{hidden.RequestID, small.RequestID}}).status(200).decode(&got)
	if len(got) != 2 || len(got[0].Extractors) != 0 || len(got[1].Extractors) != 1 {
		t.Fatalf("bulk as outsider: %+v", got)
	}

	e.do("POST", "/api/data/v3/activity/bulk/extractors", e.adminToken, map[string]any{"jobs": []string{}}).status(200).decode(&got)
	if len(got) != 0 {
		t.Fatalf("empty bulk: %+v", got)
	}
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("r%d", i)
	}
	for _, body := range []any{map[string]any{"jobs": many}, map[string]any{}, map[string]any{"jobs": "x"},
		map[string]any{"jobs": []string{}, "extra": 1}, `{"jobs":`} {
		if r := e.do("POST", "/api/data/v3/activity/bulk/extractors", e.adminToken, body); r.Code != 400 {
			t.Errorf("bulk %v: %d, want 400", body, r.Code)
		}
	}
	e.do("POST", "/api/data/v3/activity/bulk/extractors", e.adminToken, map[string]any{"jobs": many[:1000]}).status(200).decode(&got)
	if len(got) != 1000 {
		t.Fatalf("bulk of 1000: %d", len(got))
	}
}

func TestActivityItemReports(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	loc, ctr := w.location("loc-a", nil, nil)
	main, items := w.mainJob(loc, ctr)
	it := items[6] // exiv2 error A and mediainfo error C in the main job
	tok := e.adminToken

	// Twelve later single-item jobs that ran, one pending that has not
	// (no activity yet), and one job of the container that did not touch it.
	var wantJobs []string
	for k := 1; k <= 12; k++ {
		j := w.job(fmt.Sprintf("req-s%02d", k), loc, ctr, it.ID, time.Date(2024, 4, k, 0, 0, 0, 0, time.UTC))
		w.act(j, models.ActivityHarvestEnd, it.ID, it.Name, "")
		wantJobs = append([]string{j.RequestID}, wantJobs...)
	}
	w.job("req-pending", loc, ctr, it.ID, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC))
	other := w.job("req-other", loc, ctr, items[0].ID, time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	w.act(other, models.ActivityHarvestEnd, items[0].ID, items[0].Name, "")
	wantJobs = append(append([]string{"req-pending"}, wantJobs...), main.RequestID)

	itemPath := "/api/data/v3/activity/item/" + it.ID
	var jp struct {
		Jobs    []activityJobJSON `json:"jobs"`
		NumJobs int               `json:"num_jobs"`
		Next    string            `json:"next_page_token"`
	}
	e.do("GET", itemPath, tok, nil).status(200).decode(&jp)
	if jp.NumJobs != 14 || len(jp.Jobs) != 10 || jp.Next == "" {
		t.Fatalf("item jobs: %d jobs, %d on page", jp.NumJobs, len(jp.Jobs))
	}
	fwd, back := actPages(t, e, tok, itemPath, "jobs", "request_id", 5)
	if !slices.Equal(fwd, wantJobs) || !slices.Equal(back, wantJobs) {
		t.Fatalf("item jobs newest first:\n%v\n%v\nwant %v", fwd, back, wantJobs)
	}
	e.do("GET", itemPath+"?limit=100&offset=13", tok, nil).status(200).decode(&jp)
	if len(jp.Jobs) != 1 || jp.Jobs[0].RequestID != main.RequestID || jp.Jobs[0].ContainerID != ctr ||
		jp.Jobs[0].JobType != "harvest" || !jp.Jobs[0].Created.Equal(main.Created) {
		t.Fatalf("oldest job %+v", jp.Jobs)
	}

	// The item's rows in the main job, in time order.
	actsPath := itemPath + "/" + main.RequestID
	var ap struct {
		Activities    []activityJSON `json:"activities"`
		NumActivities int            `json:"num_activities"`
	}
	e.do("GET", actsPath, tok, nil).status(200).decode(&ap)
	var kinds []string
	for i, a := range ap.Activities {
		kinds = append(kinds, a.Kind+":"+a.Name)
		if i > 0 && a.TS.Before(ap.Activities[i-1].TS) {
			t.Fatalf("activities out of order: %+v", ap.Activities)
		}
		if a.ItemID != it.ID || a.RequestID != main.RequestID || a.LocationID != loc || a.ContainerID != ctr {
			t.Fatalf("activity %+v", a)
		}
	}
	wantKinds := []string{"harvestdownload:file-06.jpg", "extractor:store", "extractor:hashes", "extractor:exiv2",
		"extractor:mediainfo", "harvestend:file-06.jpg"}
	if ap.NumActivities != 6 || !slices.Equal(kinds, wantKinds) {
		t.Fatalf("activities %v", kinds)
	}
	if a := ap.Activities[3]; a.Error != errExifA || a.ErrorHash != actMD5(errExifA) || a.Duration <= 0 ||
		!slices.Equal(a.Extractors, []string{"store", "mime_type"}) || a.ProfileID != "default" {
		t.Fatalf("exiv2 activity %+v", a)
	}
	fwd, back = actPages(t, e, tok, actsPath, "activities", "name", 4)
	if len(fwd) != 6 || !slices.Equal(back, fwd) {
		t.Fatalf("activity pages %v / %v", fwd, back)
	}
	// A job that did not touch the item has no rows for it.
	e.do("GET", itemPath+"/req-other", tok, nil).status(200).decode(&ap)
	if ap.NumActivities != 0 || len(ap.Activities) != 0 {
		t.Fatalf("other job: %+v", ap)
	}

	// Extractors on the item in the job, and one extractor's errors.
	var ex struct {
		Extractors []extractorSummaryJSON `json:"extractors"`
	}
	e.do("GET", actsPath+"/extractors", tok, nil).status(200).decode(&ex)
	if !slices.Equal(ex.Extractors, []extractorSummaryJSON{{"exiv2", "Image Metadata (EXIF, IPTC, XMP)", 1},
		{"hashes", "Hashes", 0}, {"mediainfo", "Media Info", 1}, {"store", e.srv.displayName("store"), 0}}) {
		t.Fatalf("item extractors %+v", ex.Extractors)
	}
	var ie struct {
		Extractor     string `json:"extractor"`
		ExtractorName string `json:"extractor_name"`
		Errors        []struct {
			Error     string `json:"error"`
			ErrorHash string `json:"error_hash"`
		} `json:"errors"`
	}
	e.do("GET", actsPath+"/extractors/mediainfo", tok, nil).status(200).decode(&ie)
	if ie.Extractor != "mediainfo" || ie.ExtractorName != "Media Info" || len(ie.Errors) != 1 ||
		ie.Errors[0].Error != errMediaC || ie.Errors[0].ErrorHash != actMD5(errMediaC) {
		t.Fatalf("item mediainfo errors %+v", ie)
	}
	e.do("GET", actsPath+"/extractors/hashes", tok, nil).status(200).decode(&ie)
	if len(ie.Errors) != 0 {
		t.Fatalf("hashes errors %+v", ie)
	}

	// Limits, tokens, unknown ids.
	for _, q := range []string{itemPath + "?limit=101", itemPath + "?limit=0", actsPath + "?limit=101", actsPath + "?page-token=%25"} {
		if r := e.do("GET", q, tok, nil); r.Code != 400 {
			t.Errorf("%s: %d, want 400", q, r.Code)
		}
	}
	for _, p := range []string{"/api/data/v3/activity/item/nope", "/api/data/v3/activity/item/nope/" + main.RequestID,
		itemPath + "/nope", itemPath + "/nope/extractors", "/api/data/v3/activity/item/nope/" + main.RequestID + "/extractors",
		actsPath + "/extractors/bogus", itemPath + "/nope/extractors/exiv2"} {
		if r := e.do("GET", p, tok, nil); r.Code != 404 {
			t.Errorf("%s: %d, want 404", p, r.Code)
		}
	}

	// A soft-deleted item keeps its history.
	if err := e.db.Model(&models.Item{}).Where("id = ?", it.ID).Update("deleted_at", time.Now()).Error; err != nil {
		t.Fatal(err)
	}
	e.do("GET", itemPath, tok, nil).status(200)
}

// Visibility: addressing a job or item the caller may not see answers 403;
// group members and admins see it.
func TestActivityVisibility(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newActWorld(e)
	pubLoc, pubCtr := w.location("loc-pub", nil, nil)
	pub, pubItems := w.mainJob(pubLoc, pubCtr)
	// One location restricted at location level, one at container level.
	locL, ctrL := w.location("loc-l", []string{"g-team"}, nil)
	locC, ctrC := w.location("loc-c", nil, []string{"g-team"})
	var cases []struct{ job, item string }
	for i, lc := range [][2]string{{locL, ctrL}, {locC, ctrC}} {
		it := w.item(lc[0], lc[1], fmt.Sprintf("secret-%d.mov", i))
		j := w.job(fmt.Sprintf("req-secret-%d", i), lc[0], lc[1], "", time.Date(2024, 3, 5, i, 0, 0, 0, time.UTC))
		w.act(j, models.ActivityExtractor, it.ID, "exiv2", errExifA)
		w.act(j, models.ActivityHarvestEnd, it.ID, it.Name, "")
		cases = append(cases, struct{ job, item string }{j.RequestID, it.ID})
	}
	_, outsider := e.userWithScopes("outsider@example.com", "activity:read")
	insiderID, insider := e.userWithScopes("insider@example.com", "activity:read")
	w.create(&models.UserGroup{UserID: insiderID, GroupID: "g-team"})

	for _, c := range cases {
		paths := []string{
			"/api/data/v3/activity/request/" + c.job + "/extractors",
			"/api/data/v3/activity/request/" + c.job + "/extractors/exiv2",
			"/api/data/v3/activity/request/" + c.job + "/extractors/exiv2/errors/" + actMD5(errExifA) + "/files",
			"/api/data/v3/activity/request/" + c.job + "/items",
			"/api/data/v3/activity/item/" + c.item,
			"/api/data/v3/activity/item/" + c.item + "/" + c.job,
			"/api/data/v3/activity/item/" + c.item + "/" + c.job + "/extractors",
			"/api/data/v3/activity/item/" + c.item + "/" + c.job + "/extractors/exiv2",
		}
		for _, p := range paths {
			if r := e.do("GET", p, outsider, nil); r.Code != 403 || r.errCode() != "forbidden" {
				t.Errorf("outsider %s: %d %s, want 403", p, r.Code, r.Body)
			}
			e.do("GET", p, insider, nil).status(200)
			e.do("GET", p, e.adminToken, nil).status(200)
		}
	}
	// The public job stays readable to the outsider, and unknown ids stay 404.
	e.do("GET", "/api/data/v3/activity/request/"+pub.RequestID+"/extractors", outsider, nil).status(200)
	e.do("GET", "/api/data/v3/activity/item/"+pubItems[0].ID, outsider, nil).status(200)
	e.do("GET", "/api/data/v3/activity/request/nope/extractors", outsider, nil).status(404)
}
