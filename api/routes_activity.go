package api

// activityRoutes lists the routes of the activity area.
func (s *Server) activityRoutes() []Route {
	return []Route{}
}
