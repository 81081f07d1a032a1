package api

import "strings"

// compatRoutes lists the routes kept for clients written for the original
// product (DECISIONS.md, "Compatibility"): location kinds, the h2 alias of
// extractor profiles, feature switches, system statistics, duplicates,
// item types and insights.
func (s *Server) compatRoutes() []Route {
	routes := []Route{
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
	}
	return append(routes, s.profileAliasRoutes()...)
}

const (
	profilesPath      = "/api/data/extractor-profiles"
	profilesAliasPath = "/api/data/h2/extractor-profiles"
)

// profileAliasRoutes mirrors every extractor profile route under the h2
// prefix with the same handler and scope, derived from the activity area so
// that a route added there is aliased too.
func (s *Server) profileAliasRoutes() []Route {
	var out []Route
	for _, rt := range s.activityRoutes() {
		if rt.Path == profilesPath || strings.HasPrefix(rt.Path, profilesPath+"/") {
			rt.Path = profilesAliasPath + strings.TrimPrefix(rt.Path, profilesPath)
			out = append(out, rt)
		}
	}
	return out
}
