package web

import (
	"net/http"
	"time"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
)

// adminScreen is one administration screen and the scope that opens it.
type adminScreen struct {
	Key, Href, Label, Scope, About string
}

// adminScreens are the administration screens, in the order the overview
// and the section's navigation show them.
var adminScreens = []adminScreen{
	{"users", "/admin/users", "Users", "users:read", "Accounts, their roles, whether they may sign in, and their groups."},
	{"groups", "/admin/groups", "Groups", "groups:read", "Groups restrict who finds the items of a location or container."},
	{"roles", "/admin/roles", "Roles", "roles:read", "Roles and the scopes they grant."},
	{"keys", "/admin/keys", "API keys", "apikeys:read", "Keys that scripts use to call the API as their owner."},
	{"extractors", "/admin/extractors", "Extractors", "extractors:read", "What each extractor finds, whether it runs here, and its settings."},
}

// canAdminister reports whether p may open any administration page (the
// header's Admin link).
func canAdminister(p *access.Principal) bool {
	if p == nil {
		return false
	}
	if p.Can("summary:read") {
		return true
	}
	for _, s := range adminScreens {
		if p.Can(s.Scope) {
			return true
		}
	}
	return false
}

// adminBase is what every administration page shows: the layout's base,
// the section's stylesheet and script, and the screens p may open.
type adminBase struct {
	base
	Screens []adminScreen
	Current string // the Key of the screen shown, "" on the overview
}

func (u *UI) adminBase(r *http.Request, p *access.Principal, title, current string) adminBase {
	b := adminBase{base: u.base(r, p, title), Current: current}
	b.Nav = "admin"
	b.Styles = []string{u.assets.url("css/admin.css")}
	b.Scripts = []string{u.assets.url("js/admin.js")}
	for _, s := range adminScreens {
		if p.Can(s.Scope) {
			b.Screens = append(b.Screens, s)
		}
	}
	return b
}

// can is a principal's scopes as the templates ask for them.
type can map[string]bool

func scopesOf(p *access.Principal, scopes ...string) can {
	c := can{}
	for _, s := range scopes {
		c[s] = p.Can(s)
	}
	return c
}

// overviewPage is GET /admin: the screens the user may open, and the
// platform and data summaries for holders of summary:read.
type overviewPage struct {
	adminBase
	Summary bool
	Data    *dataSummary
}

type dataSummary struct {
	Files, Deleted, Pages int64
	Size, Runtime, Last   string
}

func (u *UI) adminOverview(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	if p == nil {
		http.Redirect(w, r, "/signin?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return nil
	}
	if !canAdminister(p) {
		return &pageError{http.StatusForbidden, "Not allowed",
			"Your account may not open the administration pages (they need a scope such as \"users:read\" or \"summary:read\")."}
	}
	page := &overviewPage{adminBase: u.adminBase(r, p, "Administration", "")}
	if p.Can("summary:read") {
		page.Summary = true
		ctx := r.Context()
		v, err := p.Viewer(ctx, u.DB)
		if err != nil {
			return err
		}
		row, err := store.ReadDataSummary(u.DB.WithContext(ctx), v)
		if err != nil {
			return err
		}
		d := &dataSummary{Files: row.TotalFiles, Deleted: row.DeletedFiles, Pages: row.TotalPages,
			Size: humanSize(row.TotalSize), Runtime: timecode(row.VideoRuntimeSeconds), Last: "never"}
		if row.LastHarvest != nil {
			d.Last = row.LastHarvest.UTC().Format(time.DateTime) + " UTC"
		}
		page.Data = d
	}
	u.render(w, r, http.StatusOK, "admin", page)
	return nil
}
