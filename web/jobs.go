package web

// jobRoutes lists the jobs pages: harvests with live progress, a job's items and errors, cancel, starting a harvest.
func (u *UI) jobRoutes() []Route {
	return nil
}
