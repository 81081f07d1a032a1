package web

import "github.com/metaharvest/metaharvest/api/access"

// adminRoutes lists the administration pages: users, groups, roles, API keys, extractors, summaries.
func (u *UI) adminRoutes() []Route {
	return nil
}

// canAdminister reports whether p may open any administration page (the
// header's Admin link).
func canAdminister(p *access.Principal) bool {
	return false
}
