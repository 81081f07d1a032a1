package api

// harvestRoutes lists the harvest control routes.
func (s *Server) harvestRoutes() []Route {
	return []Route{
		{post, "/api/control/harvest", "harvest:run", s.startHarvest},
		{get, "/api/control/harvest", "activity:read", s.listJobs},
		{get, "/api/control/harvest/:id", "activity:read", s.harvestStatus},
		{post, "/api/control/harvest/:id/cancel", "harvest:run", s.cancelHarvest},
	}
}
