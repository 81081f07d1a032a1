package web

// collabRoutes lists collaboration: comments and custom fields on the item page, compilations.
func (u *UI) collabRoutes() []Route {
	return nil
}
