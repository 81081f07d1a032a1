package web

import "github.com/metaharvest/metaharvest/internal/access"

// selectView is what the results page's multi-select offers: the actions
// the user's scopes allow (js/select.js does them through the api, which
// checks the scopes again and says which items it could not change).
type selectView struct {
	Compilations bool // add to a compilation: compilations:read and :write
	Fields       bool // set a custom field: fields:read and fielddata:write
	Harvest      bool // harvest again: harvest:run
	// UserID and Admin: the compilations the user may change are their
	// own (any, for an administrator).
	UserID string
	Admin  bool
}

// selectActions is nil when the user may do none of them: no checkboxes.
func selectActions(p *access.Principal) *selectView {
	v := &selectView{
		Compilations: canAddToCompilation(p),
		Fields:       p.Can("fields:read") && p.Can("fielddata:write"),
		Harvest:      p.Can("harvest:run"),
		UserID:       p.User.ID,
		Admin:        p.IsAdmin(),
	}
	if !v.Compilations && !v.Fields && !v.Harvest {
		return nil
	}
	return v
}

func canAddToCompilation(p *access.Principal) bool {
	return p.Can("compilations:read") && p.Can("compilations:write")
}
