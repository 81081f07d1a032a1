package api

import (
	"net/http"
	"strings"

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
// (each area opens with a "===" comment), and the h2 aliases of the
// extractor profile routes derived from it.
func (s *Server) routeTable() []Route {
	routes := []Route{
		// === The platform: health, the API docs, login, its summary and operations.
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

		// === Identity: roles, API keys, users and groups, and the audit log.
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

		// === Routes of the storage area: locations, their containers, the upload store,
		// items and their artifacts.
		// Locations (locations.go)
		{post, "/api/data/v3/locations", "locations:write", s.createLocation},
		{get, "/api/data/v3/locations", "locations:read", s.listLocations},
		{get, "/api/data/v3/locations/:id", "locations:read", s.getLocation},
		{put, "/api/data/v3/locations/:id", "locations:write", s.putLocation},
		{del, "/api/data/v3/locations/:id", "locations:write", s.deleteLocation},

		// Containers (containers.go)
		{get, "/api/data/locations/:id/containers", "containers:read", s.listLocationContainers},
		{put, "/api/data/containers", "containers:write", s.putContainer},
		{get, "/api/data/containers/enabled", "containers:read", s.enabledContainers},
		{get, "/api/data/v3/containers/:id/name", "containers:read", s.containerName},

		// Upload store (uploads.go)
		{post, "/files/uploadstore/*path", "uploads:write", s.uploadFile},
		{del, "/files/uploadstore/*path", "uploads:write", s.deleteUpload},

		// Items and artifacts (items.go, artifacts.go)
		{get, "/api/data/items/:id", "items:read", s.getItem},
		{get, "/api/data/items/:id/content", "items:read", s.itemContent}, // content.go
		{http.MethodHead, "/api/data/items/:id/content", "items:read", s.itemContent},
		{del, "/api/data/items/:id", "items:write", s.deleteItem},
		{get, "/api/data/artifacts/*path", "items:read", s.serveArtifact},

		// === Routes that read what the extractors found in an item: its summary
		// (summary_item.go), keyword groups and their hits (keywords_groups.go,
		// keywords_hits.go) and adult-content histograms (adult.go).
		{get, "/api/data/v3/summary/items/:id", "items:read", s.itemSummary},

		{get, "/api/data/keywords/groups", "keywords:read", s.listKeywordGroups},
		{post, "/api/data/keywords/groups", "keywords:write", s.createKeywordGroup},
		{get, "/api/data/keywords/groups/:id", "keywords:read", s.getKeywordGroup},
		{put, "/api/data/keywords/groups/:id", "keywords:write", s.putKeywordGroup},
		{del, "/api/data/keywords/groups/:id", "keywords:write", s.deleteKeywordGroup},
		{get, "/api/data/keywords/hits/:item_id", "keywords:read", s.keywordHits},

		{get, "/api/data/items/:id/adult", "adult:read", s.adultSummary},
		{get, "/api/data/items/:id/adult/:category", "adult:read", s.adultCategory},

		// === Harvest control routes.
		{post, "/api/control/harvest", "harvest:run", s.startHarvest},
		{get, "/api/control/harvest", "activity:read", s.listJobs},
		{get, "/api/control/harvest/:id", "activity:read", s.harvestStatus},
		{post, "/api/control/harvest/:id/cancel", "harvest:run", s.cancelHarvest},

		// === Routes of the activity area: harvest job reports, extractor settings and
		// profiles, and the data summary.
		// Harvest job reports (activity.go, jobstatus.go)
		{get, "/api/data/v3/activity/request/:request_id", "activity:read", s.requestStatus},
		{get, "/api/data/v3/activity/request/:request_id/extractors", "activity:read", s.requestExtractors},
		{get, "/api/data/v3/activity/request/:request_id/extractors/:extractor", "activity:read", s.requestExtractorErrors},
		{get, "/api/data/v3/activity/request/:request_id/extractors/:extractor/errors/:error_md5/files", "activity:read", s.requestErrorFiles},
		{get, "/api/data/v3/activity/request/:request_id/items", "activity:read", s.requestItems},
		{post, "/api/data/v3/activity/bulk/extractors", "activity:read", s.bulkRequestExtractors},
		{get, "/api/data/v3/activity/item/:item_id", "activity:read", s.itemJobs},
		{get, "/api/data/v3/activity/item/:item_id/:request_id", "activity:read", s.itemActivities},
		{get, "/api/data/v3/activity/item/:item_id/:request_id/extractors", "activity:read", s.itemExtractors},
		{get, "/api/data/v3/activity/item/:item_id/:request_id/extractors/:extractor", "activity:read", s.itemExtractorErrors},

		// Extractor settings and profiles (extractors.go)
		{get, "/api/data/extractors", "extractors:read", s.listExtractors},
		{put, "/api/data/extractors/:name", "extractors:write", s.putExtractor},
		{get, "/api/data/extractor-profiles", "extractors:read", s.listProfiles},
		{post, "/api/data/extractor-profiles", "extractors:write", s.createProfile},
		{get, "/api/data/extractor-profiles/:id", "extractors:read", s.getProfile},
		{put, "/api/data/extractor-profiles/:id", "extractors:write", s.putProfile},
		{del, "/api/data/extractor-profiles/:id", "extractors:write", s.deleteProfile},

		// Data summary (datasummary.go)
		{get, "/api/data/summary/data", "summary:read", s.dataSummary},

		// === Search, segment, saved search and analytics routes.
		{post, "/api/data/search", "search:read", s.search},
		{get, "/api/v3/search/analytics", "search:read", s.searchAnalytics},
		{post, "/api/data/segments/search", "segments:read", s.searchSegments},
		{get, "/api/data/segments/:id", "segments:read", s.getSegment},
		{get, "/api/data/saved-searches", "savedsearches:read", s.listSavedSearches},
		{post, "/api/data/saved-searches", "savedsearches:write", s.createSavedSearch},
		{patch, "/api/data/saved-searches/:id", "savedsearches:write", s.patchSavedSearch},
		{del, "/api/data/saved-searches/:id", "savedsearches:write", s.deleteSavedSearch},

		// === Routes of an item's captions (captions.go): extracted ones (subtitle tracks,
		// sidecar and caption files, speech) and uploaded ones.
		{get, "/api/data/v3/items/:item_id/captions", "captions:read", s.listCaptions},
		{get, "/api/data/v3/items/:item_id/captions/download", "captions:read", s.downloadCaption},
		{post, "/api/data/v3/items/:item_id/captions", "captions:write", s.uploadCaption},
		{del, "/api/data/v3/items/:item_id/captions", "captions:write", s.deleteCaption},

		// === Routes kept for clients written for the original product (DECISIONS.md,
		// "Compatibility"): location kinds, the h2 alias of extractor profiles, feature
		// switches, system statistics, duplicates, item types and insights.
		// Location kinds, feature switches, system statistics (locationkinds.go,
		// features.go, systemstats.go)
		{get, "/api/data/v3/location-kinds", "locations:read", s.locationKinds},
		{get, "/api/data/features", "summary:read", s.listFeatures},
		{put, "/api/data/features/:name", "features:write", s.putFeature},
		{get, "/api/control/system/stats", "system:read", s.systemStats},

		// Duplicates, item types, insights (duplicates.go, itemtypes.go, insights.go)
		{get, "/api/data/v3/duplicates", "items:read", s.listDuplicates},
		{get, "/api/data/v3/items/types", "items:read", s.itemTypes},
		{get, "/api/data/v3/insights", "items:read", s.insights},

		// === What people do together on top of harvested items: compilations, comments,
		// custom fields and their values, and logo training requests.
		// Compilations (compilations.go)
		{get, "/api/data/compilations", "compilations:read", s.listCompilations},
		{post, "/api/data/compilations", "compilations:write", s.createCompilation},
		{get, "/api/data/compilations/:id", "compilations:read", s.getCompilation},
		{put, "/api/data/compilations/:id", "compilations:write", s.putCompilation},
		{del, "/api/data/compilations/:id", "compilations:write", s.deleteCompilation},
		{post, "/api/data/compilations/:id/items", "compilations:write", s.addCompilationItem},
		{del, "/api/data/compilations/:id/items/:item_id", "compilations:write", s.removeCompilationItem},
		{put, "/api/data/compilations/:id/order-items", "compilations:write", s.orderCompilationItems},
		{post, "/api/data/compilations/:id/clone", "compilations:write", s.cloneCompilation},

		// Comments (comments.go)
		{get, "/api/data/comments", "comments:read", s.listComments},
		{post, "/api/data/comments", "comments:write", s.createComment},
		{put, "/api/data/comments", "comments:write", s.updateComment},
		{del, "/api/data/comments/:id", "comments:write", s.deleteComment},
		{get, "/api/data/comments/:id/history", "comments:read", s.commentHistory},

		// Custom fields (fields.go)
		{get, "/api/data/v3/fields", "fields:read", s.listFields},
		{post, "/api/data/v3/fields", "fields:write", s.createField},
		{put, "/api/data/v3/fields/order", "fields:write", s.orderFields},
		{get, "/api/data/v3/fields/:id", "fields:read", s.getField},
		{patch, "/api/data/v3/fields/:id", "fields:write", s.patchField},
		{del, "/api/data/v3/fields/:id", "fields:write", s.deleteField},

		// Field values (fielddata.go)
		{put, "/api/data/v3/fielddata", "fielddata:write", s.bulkFieldData},
		{get, "/api/data/v3/fielddata/:item_id", "fielddata:read", s.itemFieldData},
		{get, "/api/data/v3/fielddata/:item_id/field/:field_id", "fielddata:read", s.getFieldData},
		{post, "/api/data/v3/fielddata/:item_id/field/:field_id", "fielddata:write", s.createFieldData},
		{put, "/api/data/v3/fielddata/:item_id/field/:field_id", "fielddata:write", s.putFieldData},
		{del, "/api/data/v3/fielddata/:item_id/field/:field_id", "fielddata:write", s.deleteFieldData},

		// Logo training (logotraining.go)
		{options, "/api/data/train/logos", "logos:read", s.canTrainLogos},
		{get, "/api/data/train/logos", "logos:read", s.listLogoTrainings},
		{post, "/api/data/train/logos", "logos:write", s.createLogoTraining},
		{get, "/api/data/train/logos/:id", "logos:read", s.getLogoTraining},
		{get, "/api/data/train/logos/:id/status", "logos:read", s.logoTrainingStatus},

		// === Downloads of exports.go: a compilation for an editing tool, an item's
		// metadata, a search's results.
		{get, "/api/data/compilations/:id/export", "compilations:read", s.exportCompilation},
		{get, "/api/data/items/:id/export", "items:read", s.exportItem},
		{get, "/api/data/search/export", "search:read", s.exportSearch},
		{post, "/api/data/search/export", "search:read", s.exportSearch},

		// === Routes of people across the archive (people.go), and of teaching them
		// from pictures.
		{get, "/api/data/people", "people:read", s.listPeople},
		{post, "/api/data/people", "people:write", s.teachPerson},
		{get, "/api/data/people/:id", "people:read", s.getPerson},
		{patch, "/api/data/people/:id", "people:write", s.patchPerson},
		{del, "/api/data/people/:id", "people:write", s.deletePerson},
		{post, "/api/data/people/:id/merge", "people:write", s.mergePeople},
		{post, "/api/data/people/:id/faces", "people:write", s.moveFace},
		{del, "/api/data/people/:id/faces/:item_id/:face", "people:write", s.rejectFace},
		// Teaching a person from pictures (people_references.go)
		{get, "/api/data/people/:id/references", "people:read", s.listReferences},
		{post, "/api/data/people/:id/references", "people:write", s.addReferences},
		{del, "/api/data/people/:id/references/:ref", "people:write", s.deleteReference},
		{get, "/api/data/people/:id/references/:ref/:file", "people:read", s.referenceFile},
	}
	return append(routes, profileAliasRoutes(routes)...)
}

const (
	get, post, put, patch, del, options = http.MethodGet, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions
)

const (
	profilesPath      = "/api/data/extractor-profiles"
	profilesAliasPath = "/api/data/h2/extractor-profiles"
)

// profileAliasRoutes mirrors every extractor profile route of routes under
// the h2 prefix (docs/api.md, compatibility routes) with the same handler and
// scope, so that a profile route added to the table is aliased too.
func profileAliasRoutes(routes []Route) []Route {
	var out []Route
	for _, rt := range routes {
		if rt.Path == profilesPath || strings.HasPrefix(rt.Path, profilesPath+"/") {
			rt.Path = profilesAliasPath + strings.TrimPrefix(rt.Path, profilesPath)
			out = append(out, rt)
		}
	}
	return out
}
