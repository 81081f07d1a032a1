package web

// storageRoutes lists the storage pages: locations and their containers, live harvests per container, uploads.
func (u *UI) storageRoutes() []Route {
	return nil
}
