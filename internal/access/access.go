// Package access is the platform's one access model: who the caller of a
// request is (Principal), which scopes they hold, and what they may see. The
// JSON API and the web pages both load their caller through it, so that a
// page is an in-process client with exactly the API's rights.
package access

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// SessionCookie is the browser session of the web UI: a signed, expiring
// session token (auth.Tokens.IssueSession). The API accepts it for GET and
// HEAD requests, so that media elements and images of a page can load the
// API's content and artifact routes, and for a state-changing request only
// when the request also carries the session's CSRF token in CSRFHeader and
// comes from the platform's own origin (SameOrigin).
const SessionCookie = "mh_session"

// CSRFHeader carries a page's anti-forgery token (auth.Tokens.CSRF of the
// session) on its state-changing requests to the api. A custom header also
// makes a cross-origin browser request need a CORS preflight, which the api
// never grants.
const CSRFHeader = "X-CSRF-Token"

// SameOrigin refuses a request a page of another site made: browsers name
// the page's origin (Origin, Sec-Fetch-Site) on every POST, PUT, PATCH and
// DELETE. A request without either header (not from a browser) passes.
func SameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return origin == ""
	}
	o, err := url.Parse(origin)
	return err == nil && o.Host == r.Host
}

// RootRoleID is the built-in role holding every scope.
const RootRoleID = "root"

// ErrNoUser is returned by Load when there is no enabled user of that id:
// the credential that named them no longer counts.
var ErrNoUser = errors.New("no such enabled user")

// Principal is the authenticated caller of a request.
type Principal struct {
	User   models.User
	Scopes map[string]bool
	KeyID  string // set when the credential is an API key

	groups []string // loaded on first use
	loaded bool
}

// Load fills p (a new Principal when nil) with the enabled user userID and
// the scopes of its role; ErrNoUser when there is no such enabled user, or
// when key (an API key's credential, nil for a login) is not an active key
// of theirs. It reads the database every time, in one statement, so that
// disabling a user or a key, deleting a key or changing a role takes
// effect on the next request.
func Load(ctx context.Context, db *store.DB, userID string, key *store.KeyCheck, p *Principal) (*Principal, error) {
	if p == nil {
		p = &Principal{}
	}
	db = db.WithContext(ctx)
	u, scopes, ok, err := store.EnabledUserScopes(db, userID, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNoUser
	}
	p.User = u
	if key != nil {
		p.KeyID = key.ID
	}
	p.Scopes = make(map[string]bool, len(scopes))
	for _, sc := range scopes {
		p.Scopes[sc] = true
	}
	return p, nil
}

// IsAdmin: admins (and holders of the root role) pass every scope and see
// every object.
func (p *Principal) IsAdmin() bool { return p.User.Admin || p.User.RoleID == RootRoleID }

// Can reports whether the caller holds scope.
func (p *Principal) Can(scope string) bool { return p.IsAdmin() || p.Scopes[scope] }

// GroupIDs returns the caller's group ids (read once per Principal).
func (p *Principal) GroupIDs(ctx context.Context, db *store.DB) ([]string, error) {
	if !p.loaded {
		groups, err := store.UserGroupIDs(db.WithContext(ctx), p.User.ID)
		if err != nil {
			return nil, err
		}
		p.groups = groups
		p.loaded = true
	}
	return p.groups, nil
}

// Viewer is the caller as the queries of internal/store see it.
func (p *Principal) Viewer(ctx context.Context, db *store.DB) (store.Viewer, error) {
	if p.IsAdmin() {
		return store.Viewer{UserID: p.User.ID, Admin: true}, nil
	}
	groups, err := p.GroupIDs(ctx, db)
	if err != nil {
		return store.Viewer{}, err
	}
	return store.Viewer{UserID: p.User.ID, Groups: groups}, nil
}

// SearchVisibility is what the search engine lets the caller see:
// everything for administrators, else documents of locations and
// containers without groups or sharing one of the caller's groups. The
// engine enforces it; clients cannot widen it with filters.
func (p *Principal) SearchVisibility(ctx context.Context, db *store.DB) (search.Visibility, error) {
	if p.IsAdmin() {
		return search.Visibility{All: true}, nil
	}
	groups, err := p.GroupIDs(ctx, db)
	if err != nil {
		return search.Visibility{}, err
	}
	return search.Visibility{GroupIDs: append([]string{}, groups...)}, nil
}
