package api

// storageRoutes lists the routes of the storage area.
func (s *Server) storageRoutes() []Route {
	return []Route{}
}
