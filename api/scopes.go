package api

import "sort"

// ScopePublic marks the few routes that need no credential (login, health,
// docs). Every other route names one scope of the catalogue.
const ScopePublic = "public"

// ScopeGroup is one heading of the scope catalogue.
type ScopeGroup struct {
	Name      string      `json:"name"`
	SortOrder int         `json:"sort_order"`
	Scopes    []ScopeInfo `json:"scopes"`
}

// ScopeInfo is one scope.
type ScopeInfo struct {
	DisplayName string `json:"display_name"`
	Name        string `json:"name"`
}

// scopeCatalogue lists every scope of the platform, grouped. Scope names are
// <resource>:<action>; the route table says which route needs which.
var scopeCatalogue = []ScopeGroup{
	{Name: "Access control", SortOrder: 1, Scopes: []ScopeInfo{
		{"Read roles", "roles:read"}, {"Manage roles", "roles:write"},
		{"Read users", "users:read"}, {"Manage users", "users:write"},
		{"Read groups", "groups:read"}, {"Manage groups", "groups:write"},
		{"Read API keys", "apikeys:read"}, {"Manage own API keys", "apikeys:write"},
		{"Change own password", "account:write"},
		{"Read audit events", "audit:read"},
	}},
	{Name: "Storage", SortOrder: 2, Scopes: []ScopeInfo{
		{"Read locations", "locations:read"}, {"Manage locations", "locations:write"},
		{"Read containers", "containers:read"}, {"Enable and disable containers", "containers:write"},
		{"Upload and delete files in the upload store", "uploads:write"},
	}},
	{Name: "Harvest", SortOrder: 3, Scopes: []ScopeInfo{
		{"Start and cancel harvests", "harvest:run"},
		{"Read harvest activity", "activity:read"},
		{"Read extractors and profiles", "extractors:read"}, {"Manage extractors and profiles", "extractors:write"},
	}},
	{Name: "Items", SortOrder: 4, Scopes: []ScopeInfo{
		{"Read items and artifacts", "items:read"}, {"Delete items", "items:write"},
		{"Read captions", "captions:read"}, {"Manage captions", "captions:write"},
		{"Read custom fields", "fields:read"}, {"Manage custom fields", "fields:write"},
		{"Read custom field values", "fielddata:read"}, {"Write custom field values", "fielddata:write"},
		{"Read adult content summaries", "adult:read"},
		{"Read keyword hits and groups", "keywords:read"}, {"Manage keyword groups", "keywords:write"},
	}},
	{Name: "Search", SortOrder: 5, Scopes: []ScopeInfo{
		{"Search items", "search:read"},
		{"Read saved searches", "savedsearches:read"}, {"Manage saved searches", "savedsearches:write"},
		{"Search and read segments", "segments:read"},
	}},
	{Name: "Collaboration", SortOrder: 6, Scopes: []ScopeInfo{
		{"Read compilations", "compilations:read"}, {"Manage compilations", "compilations:write"},
		{"Read comments", "comments:read"}, {"Write comments", "comments:write"},
	}},
	{Name: "Logo training", SortOrder: 7, Scopes: []ScopeInfo{
		{"Read logo training requests", "logos:read"}, {"Request logo training", "logos:write"},
	}},
	{Name: "Platform", SortOrder: 8, Scopes: []ScopeInfo{
		{"Read summaries", "summary:read"},
		{"Switch platform features", "features:write"},
		{"Read system statistics, metrics and the queue dashboard", "system:read"},
		{"Act on task queues in the queue dashboard", "system:write"},
	}},
	{Name: "People", SortOrder: 9, Scopes: []ScopeInfo{
		{"See people and their faces", "people:read"},
		{"Name, merge, correct, hide, delete and teach people", "people:write"},
	}},
}

var scopeSet = func() map[string]bool {
	m := map[string]bool{}
	for _, g := range scopeCatalogue {
		for _, s := range g.Scopes {
			m[s.Name] = true
		}
	}
	return m
}()

func knownScope(name string) bool { return scopeSet[name] }

// allScopes lists every scope name, sorted (the scopes of the root role).
func allScopes() []string {
	out := make([]string, 0, len(scopeSet))
	for s := range scopeSet {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
