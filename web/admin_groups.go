package web

import (
	"net/http"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// groupsPage is GET /admin/groups: every group; creating, renaming and
// deleting them (groups:write) go through the api from admin.js.
type groupsPage struct {
	adminBase
	Can    can
	Groups []models.Group
}

func (u *UI) adminGroupsPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	groups, err := store.Groups(u.DB.WithContext(r.Context()))
	if err != nil {
		return err
	}
	page := &groupsPage{adminBase: u.adminBase(r, p, "Groups", "groups"), Can: scopesOf(p, "groups:write"), Groups: groups}
	u.render(w, r, http.StatusOK, "admin_groups", page)
	return nil
}
