package api

// harvestRoutes lists the harvest control routes.
func (s *Server) harvestRoutes() []Route {
	return []Route{}
}
