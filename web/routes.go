package web

// routeTable lists every page with its scope (a test checks that each has
// one, and that a user without it gets a 403 page).
// Areas open with a "===" comment.
//
// Pages render what they show on the server, through the store layer with
// the api's visibility. What a page changes it changes through the JSON
// API, from its script (assets/js/api.js) with the session cookie and its
// CSRF token: the api's validation, scopes and audit events, one system.
func (u *UI) routeTable() []Route {
	return []Route{
		// === Signing in, search, moments and the item page.
		{"GET", "/signin", ScopePublic, u.signInPage},
		{"POST", "/signin", ScopePublic, u.signIn},
		{"POST", "/signout", ScopePublic, u.signOut},
		{"GET", "/{$}", "search:read", u.searchPage},
		{"GET", "/moments", "segments:read", u.momentsPage},
		{"GET", "/items/{id}", "items:read", u.itemPage},

		// === Jobs pages: harvests with live progress, a job's items and errors, cancel,
		// starting a harvest.
		{"GET", "/jobs", "activity:read", u.jobsPage},
		{"GET", "/jobs/{id}", "activity:read", u.jobPage},

		// === Storage pages: locations and their containers, live harvests per container,
		// uploads.
		{"GET", "/storage", "locations:read", u.storagePage},
		{"GET", "/storage/{id}", "locations:read", u.locationPage},
		{"GET", "/upload", "uploads:write", u.uploadPage},

		// === Collaboration: comments and custom fields on the item page, compilations.
		{"GET", "/compilations", "compilations:read", u.compilationsPage},
		{"GET", "/compilations/{id}", "compilations:read", u.compilationPage},

		// === Saved searches, and the search results' multi-select actions.
		{"GET", "/saved", "savedsearches:read", u.savedPage},

		// === Administration pages: users, groups, roles, API keys, extractors, summaries.
		// The overview (/admin) is open to whoever may open any of the screens: no single
		// scope says that, so the route is ScopePublic and adminOverview checks the session
		// and canAdminister itself (a 403 page otherwise).
		{"GET", "/admin", ScopePublic, u.adminOverview},
		{"GET", "/admin/users", "users:read", u.adminUsersPage},
		{"GET", "/admin/groups", "groups:read", u.adminGroupsPage},
		{"GET", "/admin/roles", "roles:read", u.adminRolesPage},
		{"GET", "/admin/keys", "apikeys:read", u.adminKeysPage},
		{"GET", "/admin/extractors", "extractors:read", u.adminExtractorsPage},

		// === People across the archive: the People page and a person's page.
		{"GET", "/people", "people:read", u.peoplePage},
		{"GET", "/people/{id}", "people:read", u.personPage},
	}
}
