package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// Route is one endpoint: method, gin path, the scope it requires, handler.
type Route struct {
	Method  string
	Path    string
	Scope   string
	Handler func(*gin.Context) error
}

// routeTable is the single list of every route of the api, area by area
// (each area's routes are in its routes_<area>.go file).
func (s *Server) routeTable() []Route {
	var all []Route
	for _, area := range [][]Route{
		s.platformRoutes(), s.identityRoutes(), s.storageRoutes(), s.insightRoutes(), s.harvestRoutes(),
		s.activityRoutes(), s.searchRoutes(), s.captionRoutes(),
		s.compatRoutes(), s.collaborationRoutes(), s.exportRoutes(),
		s.peopleRoutes(),
	} {
		all = append(all, area...)
	}
	return all
}

const (
	get, post, put, patch, del, options = http.MethodGet, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions
)

func (s *Server) platformRoutes() []Route {
	return []Route{
		{get, "/healthz", ScopePublic, s.healthz},
		{get, "/readyz", ScopePublic, s.readyz},
		{get, "/api/docs", ScopePublic, s.docsPage},
		{get, "/api/docs/openapi.json", ScopePublic, s.docsJSON},
		{post, "/api/login", ScopePublic, s.login},
		{get, "/api/data/summary/platform", "summary:read", s.platformSummary},
		// Operations (metrics.go, monitoring.go)
		{get, metricsPath, "system:read", s.serveMetrics},
		{get, monitoringRoot, ScopePublic, s.monitoringRedirect},
		{get, monitoringRoot + "/*path", "system:read", s.monitoring},
		{post, monitoringRoot + "/*path", "system:write", s.monitoring},
		{del, monitoringRoot + "/*path", "system:write", s.monitoring},
		{get, monitoringLoginPath, ScopePublic, s.monitoringLoginPage},
		{post, monitoringLoginPath, ScopePublic, s.monitoringLogin},
	}
}

func (s *Server) identityRoutes() []Route {
	return []Route{
		// Roles
		{get, "/api/data/roles", "roles:read", s.listRoles},
		{post, "/api/data/roles", "roles:write", s.createRole},
		{get, "/api/data/roles/scopes", "roles:read", s.listScopes},
		{get, "/api/data/roles/:id", "roles:read", s.getRole},
		{del, "/api/data/roles/:id", "roles:write", s.deleteRole},
		{get, "/api/data/roles/:id/users", "roles:read", s.roleUsers},
		{post, "/roles/:id", "roles:write", s.addRoleScopes},
		{del, "/roles/:id/:scopes", "roles:write", s.removeRoleScopes},

		// API keys
		{post, "/api/data/api-keys", "apikeys:write", s.createAPIKey},
		{get, "/api/data/api-keys", "apikeys:read", s.listAPIKeys},
		{patch, "/api/data/api-keys/:id", "apikeys:write", s.patchAPIKey},
		{del, "/api/data/api-keys/:id", "apikeys:write", s.deleteAPIKey},

		// Users and groups
		{post, "/api/data/users", "users:write", s.createUser},
		{get, "/api/data/users", "users:read", s.listUsers},
		{get, "/api/data/users/:id", "users:read", s.getUser},
		{put, "/api/data/users/:id", "users:write", s.putUser},
		{patch, "/api/data/users/:id", "users:write", s.patchUser},
		{del, "/api/data/users/:id", "users:write", s.deleteUser},
		{put, "/api/data/users/:id/password", "account:write", s.changePassword},
		{put, "/api/data/v3/users/:id/groups/:group_id", "groups:write", s.addUserGroup},
		{del, "/api/data/v3/users/:id/groups/:group_id", "groups:write", s.removeUserGroup},
		{get, "/api/data/v3/users/:id/groups", "groups:read", s.userGroups},
		{post, "/api/data/v3/groups", "groups:write", s.createGroup},
		{get, "/api/data/v3/groups", "groups:read", s.listGroups},
		{get, "/api/data/v3/groups/:id", "groups:read", s.getGroup},
		{put, "/api/data/v3/groups/:id", "groups:write", s.putGroup},
		{del, "/api/data/v3/groups/:id", "groups:write", s.deleteGroup},

		// Audit
		{get, "/api/data/audit", "audit:read", s.listAudit},
		{get, "/api/data/audit/filters", "audit:read", s.auditFilters},
		{get, "/api/data/audit/:id", "audit:read", s.getAudit},
	}
}
