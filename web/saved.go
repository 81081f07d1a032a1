package web

// savedRoutes lists saved searches, and the search results' multi-select actions.
func (u *UI) savedRoutes() []Route {
	return nil
}
