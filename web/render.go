package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/metaharvest/metaharvest/internal/access"
)

//go:embed templates/*.html
var templateFS embed.FS

// base is what every page's layout shows.
type base struct {
	Title   string
	User    string // the signed-in user's name or email; "" when signed out
	Q       string // the query of the header's search field
	Nav     string // the current section: a navLink's Key
	Moments bool   // the user may open moments mode
	Links   []navLink
	CSS     string
	Styles  []string // a section's own stylesheets, after CSS
	Scripts []string
	// CSRF is the session's anti-forgery token, in a meta element: the
	// pages' scripts send it with their state-changing api requests
	// (assets/js/api.js).
	CSRF string
}

// navLink is a section of the header's navigation, shown to users whose
// scopes allow it.
type navLink struct {
	Key, Href, Label, Scope string
}

// sections are the header's links, in order. The search modes come first.
var sections = []navLink{
	{"search", "/", "Search", "search:read"},
	{"moments", "/moments", "Moments", "segments:read"},
	{"people", "/people", "People", "people:read"},
	{"compilations", "/compilations", "Compilations", "compilations:read"},
	{"saved", "/saved", "Saved searches", "savedsearches:read"},
	{"jobs", "/jobs", "Jobs", "activity:read"},
	{"storage", "/storage", "Storage", "locations:read"},
	{"upload", "/upload", "Upload", "uploads:write"},
	{"admin", "/admin", "Admin", ""},
}

func (u *UI) base(r *http.Request, p *access.Principal, title string) base {
	b := base{Title: title, CSS: u.assets.url("css/app.css")}
	if p != nil {
		b.User = strings.TrimSpace(p.User.FirstName + " " + p.User.LastName)
		if b.User == "" {
			b.User = p.User.Email
		}
		b.Moments = p.Can("segments:read")
		for _, l := range sections {
			if l.Scope != "" && !p.Can(l.Scope) || l.Key == "admin" && !canAdminister(p) {
				continue
			}
			if _, pattern := u.mux.Handler(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: l.Href}}); pattern == "" {
				continue // not built (yet): no link to a 404
			}
			b.Links = append(b.Links, l)
		}
		if c, err := r.Cookie(access.SessionCookie); err == nil {
			b.CSRF = u.Sessions.CSRF(c.Value)
		}
	}
	return b
}

// parseTemplates parses the layout with each page once, at start.
func parseTemplates(a *assetSet) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"asset": a.url,
		"hasHits": func(ls []lane) bool {
			for _, l := range ls {
				if l.Name == "hits" {
					return true
				}
			}
			return false
		},
	}
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, fmt.Errorf("parse layout: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/page_*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", n, err)
		}
		key := strings.TrimSuffix(strings.TrimPrefix(n, "templates/page_"), ".html")
		out[key] = t
	}
	return out, nil
}

// render writes page name with data; the page is made in memory first so
// that a template error becomes a 500, not half a page.
func (u *UI) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	t := u.pages[name]
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", data); err != nil {
		u.Logger.ErrorContext(r.Context(), "render page", "page", name, "error", err.Error(),
			"request_id", w.Header().Get("X-Request-ID"))
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
