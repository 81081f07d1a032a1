package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Limits of what one job page shows.
const (
	jobItemsPerPage    = 100
	jobErrorsShown     = 20 // distinct errors per extractor
	jobErrorFilesShown = 10 // files per error
	maxJobItemPages    = 10000
)

// jobDetailPage is GET /jobs/{id}: one job's state and progress (kept up
// to date by js/jobs.js), what it was asked to do, the items it harvested
// (each linking to its page), its errors per extractor with their messages
// and files, and, with harvest:run while it runs, a button that cancels it
// through the api.
type jobDetailPage struct {
	base
	Job        jobRow
	Profile    string
	Extractors []string // display names, in the job's order
	Flags      []string
	CanCancel  bool

	Items      []jobItem
	ItemsTotal int64
	Pager      jobPager

	ErrorGroups []jobErrorGroup
	CleanRuns   []string // extractors that ran without an error
}

type jobItem struct{ Name, Href string }

type jobErrorGroup struct {
	Name, Display string
	Errors        int64 // failed runs
	Messages      []jobErrorMessage
	More          int64 // distinct errors not shown
}

type jobErrorMessage struct {
	Text      string
	NumFiles  int64
	Files     []jobItem
	MoreFiles int64
}

func (u *UI) jobPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	job, v, err := visibleByPath(u, r, p, store.Job, func(j models.Job) (string, string) { return j.LocationID, j.ContainerID })
	if err != nil {
		return err
	}
	db := u.DB.WithContext(r.Context())
	rows, err := u.jobRows(db, v, []models.Job{job})
	if err != nil {
		return err
	}
	row := rows[0]
	page := &jobDetailPage{base: u.base(r, p, "Job "+store.ShortID(job.RequestID)), Job: row}
	page.Nav = "jobs"
	page.Styles = []string{u.assets.url("css/jobs.css")}
	page.Scripts = []string{u.assets.url("js/jobs.js")}
	page.CanCancel = p.Can("harvest:run") && !row.Finished
	page.Profile = job.ProfileID
	for _, n := range job.Extractors {
		page.Extractors = append(page.Extractors, u.displayName(n))
	}
	page.Flags = jobFlags(job.Options)

	pg := 1
	if s := r.URL.Query().Get("page"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= maxJobItemPages {
			pg = n
		}
	}
	items, total, err := store.JobItems(db, job.RequestID, store.Page{Limit: jobItemsPerPage, Offset: (pg - 1) * jobItemsPerPage})
	if err != nil {
		return err
	}
	page.ItemsTotal = total
	for _, it := range items {
		page.Items = append(page.Items, jobItem{Name: orID(it.Name, it.ItemID), Href: "/items/" + url.PathEscape(it.ItemID)})
	}
	page.Pager = jobItemsPager(row.Href, pg, total)

	counts, err := store.JobsExtractorCounts(db, v, []string{job.RequestID})
	if err != nil {
		return err
	}
	for _, c := range counts {
		if c.NumErrors == 0 {
			page.CleanRuns = append(page.CleanRuns, u.displayName(c.Name))
			continue
		}
		g := jobErrorGroup{Name: c.Name, Display: u.displayName(c.Name), Errors: c.NumErrors}
		msgs, n, err := store.JobExtractorErrors(db, job.RequestID, c.Name, store.Page{Limit: jobErrorsShown})
		if err != nil {
			return err
		}
		g.More = n - int64(len(msgs))
		for _, m := range msgs {
			text, _ := truncate(m.Error, 2000)
			msg := jobErrorMessage{Text: text, NumFiles: m.NumFiles}
			files, nf, err := store.JobErrorFiles(db, job.RequestID, c.Name, m.ErrorHash, store.Page{Limit: jobErrorFilesShown})
			if err != nil {
				return err
			}
			for _, f := range files {
				msg.Files = append(msg.Files, jobItem{Name: orID(f.Name, f.ItemID), Href: "/items/" + url.PathEscape(f.ItemID)})
			}
			msg.MoreFiles = nf - int64(len(files))
			g.Messages = append(g.Messages, msg)
		}
		page.ErrorGroups = append(page.ErrorGroups, g)
	}
	u.render(w, r, http.StatusOK, "job", page)
	return nil
}

// jobFlags names the options a job was started with.
func jobFlags(raw models.JSON) []string {
	var o struct {
		NewExtractorsOnly    bool `json:"new_extractors_only"`
		Force                bool `json:"force"`
		IgnoreRecentlyWalked bool `json:"ignore_recently_walked"`
		OverrideExtractors   bool `json:"override_extractors"`
	}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &o)
	}
	var out []string
	if o.Force {
		out = append(out, "force: every file again, changed or not")
	}
	if o.NewExtractorsOnly {
		out = append(out, "only the extractors that have not run on a file")
	}
	if o.OverrideExtractors {
		out = append(out, "the chosen extractors even where switched off")
	}
	if o.IgnoreRecentlyWalked {
		out = append(out, "walked again even if walked in the last minute")
	}
	return out
}

// jobPager is what the "pager" template shows.
type jobPager struct {
	Page, Pages      int
	Prev, Next       string
	First, Last      string
	HasPrev, HasNext bool
}

func jobItemsPager(href string, pg int, total int64) jobPager {
	pages := int((total + jobItemsPerPage - 1) / jobItemsPerPage)
	out := jobPager{Page: pg, Pages: pages}
	link := func(n int) string { return href + "?page=" + strconv.Itoa(n) + "#items-title" }
	if pg > 1 {
		out.HasPrev, out.First, out.Prev = true, link(1), link(min(pg-1, max(pages, 1)))
	}
	if pg < pages {
		out.HasNext, out.Next, out.Last = true, link(pg+1), link(min(pages, maxJobItemPages))
	}
	return out
}
