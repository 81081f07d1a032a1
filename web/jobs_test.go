package web

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

const hostileError = `<script>alert(5)</script> could not decode`

// jobsCorpus is the corpus with three jobs: a finished harvest of the
// public archive (the clip harvested, the hostile file failed in exiv2),
// a running one of the public archive, and one of the vault.
type jobsCorpus struct {
	*corpus
	done, running, secret string
}

func newJobsCorpus(t *testing.T) *jobsCorpus {
	c := &jobsCorpus{corpus: newCorpus(t), done: "job-done-1", running: "job-running-1", secret: "job-secret-1"}
	e := c.env
	starter := e.user("starter@example.com", "harvest:run")
	e.must(e.db.Model(&models.User{}).Where("id = ?", starter).Updates(map[string]any{"first_name": "<i>Sam</i>", "last_name": "Starter"}).Error)
	pub, sec := models.ContainerID("pub", "media"), models.ContainerID("sec", "media")
	t0 := time.Now().Add(-10 * time.Minute).UTC()
	for _, j := range []models.Job{
		{RequestID: c.done, JobType: "harvest", LocationID: "pub", ContainerID: pub, UserID: starter, ProfileID: "default",
			Extractors: models.Strings{"store", "mime_type", "exiv2"}, Options: models.MustJSON(map[string]bool{"force": true}),
			Priority: 3, WalkedCount: 3, EnqueuedCount: 2, WalkComplete: true, Created: t0},
		{RequestID: c.running, JobType: "harvest", LocationID: "pub", ContainerID: pub, UserID: starter,
			Extractors: models.Strings{"store"}, Options: models.MustJSON(map[string]bool{}), Priority: 5, WalkedCount: 3, EnqueuedCount: 3,
			WalkComplete: true, Created: t0.Add(time.Minute)},
		{RequestID: c.secret, JobType: "harvest", LocationID: "sec", ContainerID: sec, UserID: starter,
			Extractors: models.Strings{"store"}, Options: models.MustJSON(map[string]bool{}), Priority: 5, WalkedCount: 1, EnqueuedCount: 1,
			WalkComplete: true, Created: t0.Add(2 * time.Minute)},
	} {
		e.must(e.db.Create(&j).Error)
	}
	act := func(a models.Activity) {
		if a.TS.IsZero() {
			a.TS = t0.Add(time.Minute)
		}
		if a.Extractors == nil {
			a.Extractors = models.Strings{}
		}
		e.must(e.db.Table(models.ActivitiesTable).Create(&a).Error)
	}
	act(models.Activity{Kind: models.ActivityWalk, RequestID: c.done, Name: "media", Count: 3})
	act(models.Activity{Kind: models.ActivityHarvestEnd, RequestID: c.done, ItemID: c.clip, Name: "clip.mp4", Count: 1,
		TS: t0.Add(2 * time.Minute)})
	act(models.Activity{Kind: models.ActivityExtractor, RequestID: c.done, ItemID: c.hostile, Name: "exiv2", Error: hostileError})
	act(models.Activity{Kind: models.ActivityHarvestEnd, RequestID: c.done, ItemID: c.hostile, Name: hostileName, Count: 1,
		Error: "exiv2 failed", TS: t0.Add(3 * time.Minute)})
	act(models.Activity{Kind: models.ActivityWalk, RequestID: c.running, Name: "media", Count: 3})
	act(models.Activity{Kind: models.ActivityHarvestEnd, RequestID: c.running, ItemID: c.clip, Name: "clip.mp4", Count: 1})
	act(models.Activity{Kind: models.ActivityWalk, RequestID: c.secret, Name: "media", Count: 1})
	act(models.Activity{Kind: models.ActivityHarvestEnd, RequestID: c.secret, ItemID: c.secret, Name: "secret_plan.txt", Count: 1})
	return c
}

// The list shows the jobs the user may see with their state, progress,
// priority, starter and errors by extractor; hostile names and error
// messages stay text; the vault's job is not there. A reader gets no start
// form, no cancel button and no queue dashboard link.
func TestJobsPageShowsVisibleJobs(t *testing.T) {
	t.Parallel()
	c := newJobsCorpus(t)
	reader := c.signInAs("reader@example.com", "activity:read", "items:read")
	body := c.page("/jobs", reader, http.StatusOK)
	for _, want := range []string{
		`data-job="job-done-1" data-state="done"`, `data-job="job-running-1" data-state="harvesting"`,
		`href="/jobs/job-done-1"`, "Public archive", "media", "&lt;i&gt;Sam&lt;/i&gt; Starter",
		`max="3" value="3"`, "3 of 3 files", `<span class="c-failed">1</span> failed`, `<span class="c-skipped">1</span> unchanged`,
		`max="3" value="1"`, `<td class="job-priority">3</td>`, "Image Metadata (EXIF, IPTC, XMP): 1", "/assets/js/jobs.js",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the jobs page lacks %q", want)
		}
	}
	for _, bad := range []string{"job-secret-1", "Vault", "<i>Sam</i>", "start-harvest", "/monitoring", "job-row-template"} {
		if strings.Contains(body, bad) {
			t.Errorf("the reader's jobs page has %q", bad)
		}
	}
	running := c.page("/jobs?state=running", reader, http.StatusOK)
	if !strings.Contains(running, "job-running-1") || strings.Contains(running, "job-done-1") {
		t.Errorf("the running view: %.3000s", running)
	}

	// Someone who may not read the activity gets the 403 page.
	none := c.signInAs("none@example.com", "search:read")
	for _, target := range []string{"/jobs", "/jobs/job-done-1"} {
		if b := c.page(target, none, http.StatusForbidden); !strings.Contains(b, "activity:read") || strings.Contains(b, "clip.mp4") {
			t.Errorf("403 page of %s: %.800s", target, b)
		}
	}
}

// The job page lists the job's items (links to their pages), its errors by
// extractor with the message (as text) and the files that had it, and what
// it was asked; a job of a place the user may not see is a 404 word for
// word like an unknown id.
func TestJobPageShowsItemsAndErrors(t *testing.T) {
	t.Parallel()
	c := newJobsCorpus(t)
	reader := c.signInAs("reader@example.com", "activity:read", "items:read")
	body := c.page("/jobs/job-done-1", reader, http.StatusOK)
	for _, want := range []string{
		`data-job="job-done-1" data-state="done"`, `Items (<span id="items-count">2</span>)`,
		`href="/items/` + url.PathEscape(c.clip) + `"`, ">clip.mp4</a>",
		`href="/items/` + url.PathEscape(c.hostile) + `"`, html.EscapeString(hostileName),
		"Image Metadata (EXIF, IPTC, XMP)", html.EscapeString(hostileError), "force: every file again", "<code>default</code>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the job page lacks %q", want)
		}
	}
	for _, bad := range []string{hostileName, hostileError, `id="cancel-job"`} {
		if strings.Contains(body, bad) {
			t.Errorf("the job page has %q", bad)
		}
	}
	unknown := c.page("/jobs/no-such-job", reader, http.StatusNotFound)
	secret := c.page("/jobs/job-secret-1", reader, http.StatusNotFound)
	if unknown != secret || strings.Contains(secret, "secret_plan") {
		t.Errorf("the vault's job differs from an unknown one:\n%.1500s\n%.1500s", unknown, secret)
	}
	admin := c.signIn(adminEmail, adminPassword)
	if b := c.page("/jobs/job-secret-1", admin, http.StatusOK); !strings.Contains(b, "secret_plan.txt") {
		t.Errorf("the admin's view of the vault's job: %.2000s", b)
	}
}

// With harvest:run the list has the start form (the locations and
// containers the user may see, the extractors by family, the profiles
// with extractors:read) and an unfinished job has its cancel button; the
// queue dashboard is linked for system:read.
func TestJobsStartFormAndCancel(t *testing.T) {
	t.Parallel()
	c := newJobsCorpus(t)
	runner := c.signInAs("runner@example.com", "activity:read", "harvest:run", "extractors:read")
	body := c.page("/jobs", runner, http.StatusOK)
	for _, want := range []string{
		`id="start-harvest"`, `<option value="pub">Public archive</option>`,
		`<option value="` + models.ContainerID("pub", "media") + `" data-location="pub">media</option>`,
		`name="extractor" value="exiv2"`, `<legend>Images</legend>`, `name="profile_id"`, `<option value="default">`,
		`id="job-row-template"`, `name="priority" min="1" max="10"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the runner's jobs page lacks %q", want)
		}
	}
	for _, bad := range []string{`value="sec"`, models.ContainerID("sec", "media"), `name="extractor" value="store"`, "/monitoring"} {
		if strings.Contains(body, bad) {
			t.Errorf("the runner's jobs page has %q", bad)
		}
	}
	if b := c.page("/jobs/job-running-1", runner, http.StatusOK); !strings.Contains(b, `id="cancel-job"`) {
		t.Errorf("no cancel button on a running job: %.2000s", b)
	}
	if b := c.page("/jobs/job-done-1", runner, http.StatusOK); strings.Contains(b, `id="cancel-job"`) {
		t.Errorf("a cancel button on a finished job")
	}
	admin := c.signIn(adminEmail, adminPassword)
	if b := c.page("/jobs", admin, http.StatusOK); !strings.Contains(b, `href="/monitoring/"`) || !strings.Contains(b, `value="sec"`) {
		t.Errorf("the admin's jobs page: %.2000s", b)
	}
}

// The page's actions are the api's: a reader's cancel, sent as the page
// sends it (cookie and CSRF token), is refused with 403 and changes
// nothing; a runner's cancels the job, which the job page then shows.
func TestJobActionsGoThroughTheAPI(t *testing.T) {
	t.Parallel()
	c := newJobsCorpus(t)
	reader := c.signInAs("reader@example.com", "activity:read")
	runner := c.signInAs("runner@example.com", "activity:read", "harvest:run")
	if r := c.pageCall("POST", "/api/control/harvest/job-running-1/cancel", reader); r.Code != http.StatusForbidden {
		t.Fatalf("a reader's cancel: %d %s", r.Code, r.Body)
	}
	if r := c.pageCall("POST", "/api/control/harvest", reader); r.Code != http.StatusForbidden {
		t.Fatalf("a reader's start: %d %s", r.Code, r.Body)
	}
	if b := c.page("/jobs/job-running-1", runner, http.StatusOK); !strings.Contains(b, `data-state="harvesting"`) {
		t.Fatalf("before: %.1500s", b)
	}
	if r := c.pageCall("POST", "/api/control/harvest/job-running-1/cancel", runner); r.Code != http.StatusOK {
		t.Fatalf("the runner's cancel: %d %s", r.Code, r.Body)
	}
	b := c.page("/jobs/job-running-1", runner, http.StatusOK)
	if !strings.Contains(b, `data-state="cancelled"`) || strings.Contains(b, `id="cancel-job"`) {
		t.Fatalf("after the cancel: %.1500s", b)
	}
}

// pageCall is a state-changing api request as a page's script sends it.
func (c *jobsCorpus) pageCall(method, path string, cookie *http.Cookie) *httptest.ResponseRecorder {
	c.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://example.com")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set(access.CSRFHeader, c.ui.Sessions.CSRF(cookie.Value))
	req.AddCookie(cookie)
	return c.serve(req)
}

func TestJobDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 0: "0s", 45 * time.Second: "45s",
		185 * time.Second: "3m 05s", 2*time.Hour + 3*time.Minute + 10*time.Second: "2h 03m"} {
		if got := jobDuration(d); got != want {
			t.Errorf("jobDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// The bar counts the files finished (harvested, failed, unchanged) of the
// files listed; with nothing listed yet it has no value (indeterminate),
// and a finished job with no files is full. A skipped job says why.
func TestJobProgressAndLabel(t *testing.T) {
	for _, c := range []struct {
		st   store.JobStatus
		want jobProgress
	}{
		{store.JobStatus{State: store.JobQueued}, jobProgress{Label: "waiting for the listing"}},
		{store.JobStatus{State: store.JobHarvesting, Counts: store.JobCounts{Walked: 4, Enqueued: 3, Harvested: 1, Failed: 1, Skipped: 1}},
			jobProgress{Value: 3, Max: 4, Label: "3 of 4 files"}},
		{store.JobStatus{State: store.JobDone}, jobProgress{Value: 1, Max: 1, Label: "no files"}},
	} {
		if got := progressOf(c.st); got != c.want {
			t.Errorf("progressOf(%+v) = %+v, want %+v", c.st, got, c.want)
		}
	}
	if l := jobStateLabel(store.JobStatus{State: store.JobDone, Skipped: "recently_walked"}); !strings.HasPrefix(l, "Skipped") {
		t.Errorf("a skipped job reads %q", l)
	}
	if l := jobStateLabel(store.JobStatus{State: store.JobWalking}); l != "Listing files" {
		t.Errorf("a walking job reads %q", l)
	}
}
