package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Deps are what the pages need, passed in by main (or a test).
type Deps struct {
	DB *store.DB
	// Search is the engine the search and moments pages query (the api's).
	Search search.Engine
	// Extractors names the extractors and their families in item panels
	// (extractors.Default when nil).
	Extractors *extractors.Registry
	Logger     *slog.Logger
	// Sessions signs the session cookie: the api's signer, so that the
	// api accepts the cookie on its GET routes (content, artifacts).
	Sessions *auth.Tokens
	// SignIn checks an email and password (the api's: its rate limit and
	// audit event). Its errors are apperr errors (401, 429).
	SignIn func(r *http.Request, email, password string) (models.User, error)
	// SessionTTL is how long a session lasts (default 12 hours).
	SessionTTL time.Duration
	// SecureCookies marks the cookie Secure (HTTPS deployments).
	SecureCookies bool
	// ArtifactOrigins are the origins besides the platform's that serve
	// artifacts to browsers (the bucket's, when the api redirects artifact
	// requests to presigned URLs of it): pages allow their images and
	// media. Empty: artifacts come from the platform.
	ArtifactOrigins []string
}

// UI serves the pages and assets; it is an http.Handler.
type UI struct {
	Deps
	mux    *http.ServeMux
	owned  *http.ServeMux // the route patterns without methods: Owns
	routes []Route
	pages  map[string]*template.Template
	assets *assetSet
	// catalogue is the search engine's fixed item catalogue (base fields
	// and the fields the extractors declare): the facets offered.
	catalogue map[string]search.Kind
	// csp is the pages' Content-Security-Policy (pageCSP).
	csp string
}

// Route is one page route and the scope it needs (ScopePublic: none).
type Route struct {
	Method, Pattern, Scope string
	handler                func(w http.ResponseWriter, r *http.Request, p *access.Principal) error
}

// ScopePublic marks the routes open without a session.
const ScopePublic = "public"

// New parses the templates and builds the routes.
func New(d Deps) (*UI, error) {
	if d.DB == nil || d.Sessions == nil || d.SignIn == nil {
		return nil, errors.New("web: DB, Sessions and SignIn are required")
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Extractors == nil {
		d.Extractors = extractors.Default
	}
	if d.SessionTTL <= 0 {
		d.SessionTTL = 12 * time.Hour
	}
	u := &UI{Deps: d, mux: http.NewServeMux(), owned: http.NewServeMux(), catalogue: search.BaseFields(search.ScopeItems),
		csp: pageCSP(d.ArtifactOrigins)}
	var err error
	if u.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if u.pages, err = parseTemplates(u.assets); err != nil {
		return nil, err
	}
	u.routes = u.routeTable()
	seen := map[string]bool{}
	for _, rt := range u.routes {
		u.mux.HandleFunc(rt.Method+" "+rt.Pattern, u.wrap(rt))
		if !seen[rt.Pattern] {
			seen[rt.Pattern] = true
			u.owned.HandleFunc(rt.Pattern, http.NotFound)
		}
	}
	u.mux.HandleFunc("GET /assets/", u.serveAsset)
	u.owned.HandleFunc("/assets/", http.NotFound)
	return u, nil
}

// Routes lists the page routes (for tests and docs).
func (u *UI) Routes() []Route { return u.routes }

// Owns reports whether path is one of the UI's: the api hands such requests
// to ServeHTTP and answers every other unknown path itself.
func (u *UI) Owns(path string) bool {
	if path == "" || path[0] != '/' || strings.HasPrefix(path, "/api/") {
		return false
	}
	_, pattern := u.owned.Handler(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}})
	return pattern != ""
}

func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w.Header(), u.csp)
	u.mux.ServeHTTP(w, r)
}

// csp allows the page's own scripts, styles, images and media only: no
// inline script or style (the scripts position markers through the CSSOM),
// no plugins, no framing, forms posting to the platform only.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// pageCSP is csp with images and media also allowed from origins.
func pageCSP(origins []string) string {
	if len(origins) == 0 {
		return csp
	}
	o := " " + strings.Join(origins, " ")
	return strings.NewReplacer("img-src 'self' data:;", "img-src 'self' data:"+o+";", "media-src 'self';", "media-src 'self'"+o+";").Replace(csp)
}

func securityHeaders(h http.Header, csp string) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
}

// wrap resolves the session, checks the route's scope and renders the
// handler's error as a page.
func (u *UI) wrap(rt Route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		var p *access.Principal
		if rt.Scope != ScopePublic {
			var err error
			p, err = u.session(r)
			if err != nil {
				u.fail(w, r, nil, err)
				return
			}
			if p == nil {
				http.Redirect(w, r, "/signin?next="+urlQueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			if !p.Can(rt.Scope) {
				u.fail(w, r, p, forbidden(rt.Scope))
				return
			}
		} else if sp, err := u.session(r); err == nil {
			p = sp // the header shows who is signed in
		}
		if err := rt.handler(w, r, p); err != nil {
			u.fail(w, r, p, err)
		}
	}
}

// session is the principal of the request's session cookie; nil when there
// is none, or it is forged or expired, or its user is gone or disabled.
func (u *UI) session(r *http.Request) (*access.Principal, error) {
	c, err := r.Cookie(access.SessionCookie)
	if err != nil || c.Value == "" || len(c.Value) > 4096 {
		return nil, nil
	}
	userID, err := u.Sessions.ParseSession(c.Value)
	if err != nil {
		return nil, nil
	}
	p, err := access.Load(r.Context(), u.DB, userID, nil, nil)
	if errors.Is(err, access.ErrNoUser) {
		return nil, nil
	}
	return p, err
}

// pageError is an error shown as a page with its status.
type pageError struct {
	Status  int
	Title   string
	Message string
}

func (e *pageError) Error() string { return e.Title + ": " + e.Message }

func forbidden(scope string) error {
	return &pageError{http.StatusForbidden, "Not allowed",
		fmt.Sprintf("Your account may not open this page (it needs the scope %q).", scope)}
}

// notFound shows nothing of what was asked for: an item that does not
// exist and one the user may not see look the same.
var errNotFound = &pageError{http.StatusNotFound, "Not found", "There is nothing here, or you may not see it."}

// fail renders err as an error page: its own status for a pageError, else
// a logged 500 that names the request id and nothing of the cause.
func (u *UI) fail(w http.ResponseWriter, r *http.Request, p *access.Principal, err error) {
	var pe *pageError
	if !errors.As(err, &pe) {
		if errors.Is(err, context.Canceled) {
			return
		}
		u.Logger.ErrorContext(r.Context(), "page failed", slog.String("request_id", w.Header().Get("X-Request-ID")),
			slog.String("path", r.URL.Path), slog.Any("error", err))
		pe = &pageError{http.StatusInternalServerError, "Something went wrong",
			"The page could not be made. Try again; if it keeps failing, give your administrator the request id " +
				w.Header().Get("X-Request-ID") + "."}
	}
	u.render(w, r, pe.Status, "error", &errorPage{base: u.base(r, p, pe.Title), Err: pe})
}

type errorPage struct {
	base
	Err *pageError
}
