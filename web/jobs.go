package web

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// jobsShown is how many jobs the list shows, newest first.
const jobsShown = 100

// jobsPage is GET /jobs: the harvest jobs the user may see (the api's list
// and visibility) with their state, progress, priority, starter, duration
// and errors per extractor; js/jobs.js keeps the unfinished ones up to date
// from the api. With harvest:run, the form that starts a harvest (posted to
// the api by the script).
type jobsPage struct {
	base
	Jobs    []jobRow
	Running bool // only the running jobs are listed (?state=running)
	Limit   int
	Form    *jobStartForm // nil without harvest:run
	// NewRow is the row js/jobs.js fills for a job started from the form.
	NewRow jobRow
	// Monitoring links the queue dashboard (system:read).
	Monitoring bool
}

// jobRow is one job as the list and the job page show it. The script
// updates the fields it names from the api's job status.
type jobRow struct {
	ID, Href    string
	Kind        string // "Harvest", "Live harvest", "One item"
	Location    string
	Container   string
	Item        string // the item of a single-item job
	State       string // store.Job* (data-state)
	StateLabel  string
	Finished    bool
	Counts      store.JobCounts
	Progress    jobProgress
	Priority    int
	StartedBy   string
	Created     string // 2006-01-02 15:04 UTC
	CreatedISO  string
	StartedISO  string // "" while queued
	FinishedISO string // "" while unfinished
	Duration    string
	Errors      []jobExtractorErrors // the extractors that failed at least once
	Ran         int                  // how many extractors ran
}

// jobProgress is a job's <progress>: Max 0 while the total is not known.
type jobProgress struct {
	Value, Max int64
	Label      string // "3 of 5 files"
}

type jobExtractorErrors struct {
	Name, Display string
	Errors        int64
}

var jobStateLabels = map[string]string{
	store.JobQueued: "Queued", store.JobWalking: "Listing files", store.JobHarvesting: "Harvesting",
	store.JobDone: "Done", store.JobCancelled: "Cancelled", store.JobFailed: "Failed",
}

func (u *UI) jobsPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	ctx := r.Context()
	db := u.DB.WithContext(ctx)
	v, err := p.Viewer(ctx, u.DB)
	if err != nil {
		return err
	}
	page := &jobsPage{base: u.base(r, p, "Jobs"), Limit: jobsShown, Monitoring: p.Can("system:read")}
	page.Nav = "jobs"
	page.Styles = []string{u.assets.url("css/jobs.css")}
	page.Scripts = []string{u.assets.url("js/jobs.js")}
	page.Running = r.URL.Query().Get("state") == "running"
	jobs, err := store.ListJobs(db, v, page.Running, jobsShown)
	if err != nil {
		return err
	}
	if page.Jobs, err = u.jobRows(db, v, jobs); err != nil {
		return err
	}
	if p.Can("harvest:run") {
		if page.Form, err = u.jobStartForm(db, v, p); err != nil {
			return err
		}
		page.NewRow = jobRow{Kind: "Harvest", State: store.JobQueued, StateLabel: jobStateLabels[store.JobQueued], Priority: 5,
			Progress: progressOf(store.JobStatus{State: store.JobQueued}), StartedBy: page.User}
	}
	u.render(w, r, http.StatusOK, "jobs", page)
	return nil
}

// jobRows reads what the rows of these jobs show: their status, the names
// of their places and starters, their errors per extractor.
func (u *UI) jobRows(db *store.DB, v store.Viewer, jobs []models.Job) ([]jobRow, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	var ids, userIDs, ctrIDs []string
	for _, j := range jobs {
		ids = append(ids, j.RequestID)
		ctrIDs = append(ctrIDs, j.ContainerID)
		if j.UserID != "" {
			userIDs = append(userIDs, j.UserID)
		}
	}
	locs, err := store.Locations(db, v)
	if err != nil {
		return nil, err
	}
	locNames := map[string]string{}
	for _, l := range locs {
		locNames[l.ID] = l.Name
	}
	ctrs, err := store.VisibleContainers(db, v, ctrIDs)
	if err != nil {
		return nil, err
	}
	ctrNames := map[string]string{}
	for _, c := range ctrs {
		ctrNames[c.ID] = c.Name
	}
	users, err := store.UserSummaries(db, userIDs)
	if err != nil {
		return nil, err
	}
	counts, err := store.JobsExtractorCounts(db, v, ids)
	if err != nil {
		return nil, err
	}
	byJob := map[string][]store.ExtractorCount{}
	for _, c := range counts {
		byJob[c.RequestID] = append(byJob[c.RequestID], c)
	}
	now := time.Now()
	rows := make([]jobRow, 0, len(jobs))
	for _, j := range jobs {
		a, err := store.ReadJobActivity(db, j.RequestID)
		if err != nil {
			return nil, err
		}
		row := u.jobRowOf(j, store.JobStatusOf(j, a), now)
		row.Location, row.Container = orID(locNames[j.LocationID], j.LocationID), orID(ctrNames[j.ContainerID], j.ContainerID)
		if j.ItemID != "" {
			row.Item = j.ItemID
			if it, err := store.ActivityItem(db, j.ItemID); err == nil && it.Name != "" {
				row.Item = it.Name
			}
		}
		row.StartedBy = starterName(j.UserID, users)
		row.Ran, row.Errors = u.jobErrors(byJob[j.RequestID])
		rows = append(rows, row)
	}
	return rows, nil
}

// jobRowOf is what a job's row shows of its row and status.
func (u *UI) jobRowOf(j models.Job, st store.JobStatus, now time.Time) jobRow {
	row := jobRow{ID: j.RequestID, Href: "/jobs/" + url.PathEscape(j.RequestID), Kind: jobKind(j),
		State: st.State, StateLabel: jobStateLabel(st), Finished: st.Finished(), Counts: st.Counts,
		Progress: progressOf(st), Priority: j.Priority,
		Created: j.Created.UTC().Format("2006-01-02 15:04 UTC"), CreatedISO: j.Created.UTC().Format(time.RFC3339)}
	if st.StartedAt != nil {
		row.StartedISO = st.StartedAt.Format(time.RFC3339)
		end := now
		if st.FinishedAt != nil {
			end = *st.FinishedAt
			row.FinishedISO = st.FinishedAt.Format(time.RFC3339)
		}
		row.Duration = jobDuration(end.Sub(*st.StartedAt))
	} else if st.FinishedAt != nil {
		row.FinishedISO = st.FinishedAt.Format(time.RFC3339)
	}
	return row
}

func (u *UI) jobErrors(counts []store.ExtractorCount) (int, []jobExtractorErrors) {
	var out []jobExtractorErrors
	for _, c := range counts {
		if c.NumErrors > 0 {
			out = append(out, jobExtractorErrors{Name: c.Name, Display: u.displayName(c.Name), Errors: c.NumErrors})
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Errors > out[k].Errors })
	return len(counts), out
}

func jobKind(j models.Job) string {
	switch {
	case j.ItemID != "":
		return "One item"
	case j.JobType == "live":
		return "Live harvest"
	}
	return "Harvest"
}

func jobStateLabel(st store.JobStatus) string {
	if st.State == store.JobDone && st.Skipped != "" {
		return "Skipped (walked recently)"
	}
	if l, ok := jobStateLabels[st.State]; ok {
		return l
	}
	return st.State
}

// progressOf is the job's progress bar: the files finished (harvested,
// failed, or found unchanged) of the files listed. js/jobs.js computes the
// same from the api's counts.
func progressOf(st store.JobStatus) jobProgress {
	c := st.Counts
	done := c.Harvested + c.Failed + c.Skipped
	switch {
	case c.Walked > 0:
		done = min(done, c.Walked)
		return jobProgress{Value: done, Max: c.Walked, Label: fmt.Sprintf("%d of %d files", done, c.Walked)}
	case st.Finished():
		return jobProgress{Value: 1, Max: 1, Label: "no files"}
	}
	return jobProgress{Label: "waiting for the listing"}
}

// jobDuration writes d as 45s, 3m 05s or 2h 03m.
func jobDuration(d time.Duration) string {
	s := int64(d.Round(time.Second).Seconds())
	switch {
	case s < 0:
		s = 0
		fallthrough
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh %02dm", s/3600, s/60%60)
}

func starterName(userID string, users map[string]store.UserSummary) string {
	if userID == "" {
		return "the scheduler"
	}
	us, ok := users[userID]
	if !ok {
		return "a deleted user"
	}
	if n := joinName(us.FirstName, us.LastName); n != "" {
		return n
	}
	return us.Email
}

func joinName(first, last string) string {
	switch {
	case first == "":
		return last
	case last == "":
		return first
	}
	return first + " " + last
}

func orID(name, id string) string {
	if name == "" {
		return id
	}
	return name
}
