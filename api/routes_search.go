package api

// searchRoutes lists the routes of the search area.
func (s *Server) searchRoutes() []Route {
	return []Route{}
}
