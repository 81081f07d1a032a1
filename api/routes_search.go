package api

// searchRoutes lists the search, segment, saved search and analytics routes.
func (s *Server) searchRoutes() []Route {
	return []Route{
		{post, "/api/data/search", "search:read", s.search},
		{get, "/api/v3/search/analytics", "search:read", s.searchAnalytics},
		{post, "/api/data/segments/search", "segments:read", s.searchSegments},
		{get, "/api/data/segments/:id", "segments:read", s.getSegment},
		{get, "/api/data/saved-searches", "savedsearches:read", s.listSavedSearches},
		{post, "/api/data/saved-searches", "savedsearches:write", s.createSavedSearch},
		{patch, "/api/data/saved-searches/:id", "savedsearches:write", s.patchSavedSearch},
		{del, "/api/data/saved-searches/:id", "savedsearches:write", s.deleteSavedSearch},
	}
}
