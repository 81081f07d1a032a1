package api

// exportRoutes lists the downloads of exports.go: a compilation for an
// editing tool, an item's metadata, a search's results.
func (s *Server) exportRoutes() []Route {
	return []Route{
		{get, "/api/data/compilations/:id/export", "compilations:read", s.exportCompilation},
		{get, "/api/data/items/:id/export", "items:read", s.exportItem},
		{get, "/api/data/search/export", "search:read", s.exportSearch},
		{post, "/api/data/search/export", "search:read", s.exportSearch},
	}
}
