package web

import (
	"net/http"
	"sort"
	"strings"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
)

// rolesPage is GET /admin/roles: every role with its scopes. Creating a
// role, changing its scopes and deleting it (roles:write) go through the
// api from admin.js, which reads the scope catalogue from the api
// (GET /api/data/roles/scopes) for the checkboxes.
type rolesPage struct {
	adminBase
	Can   can
	Roles []roleRow
}

type roleRow struct {
	ID, Name, Description string
	Scopes                []string
	ScopeList             string // space-separated, for admin.js
	Builtin, Root         bool
}

func (u *UI) adminRolesPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	roles, err := store.Roles(u.DB.WithContext(r.Context()))
	if err != nil {
		return err
	}
	page := &rolesPage{adminBase: u.adminBase(r, p, "Roles", "roles"), Can: scopesOf(p, "roles:write")}
	for _, ro := range roles {
		scopes := append([]string{}, ro.Scopes...)
		sort.Strings(scopes)
		page.Roles = append(page.Roles, roleRow{ID: ro.ID, Name: ro.Name, Description: ro.Description,
			Scopes: scopes, ScopeList: strings.Join(scopes, " "), Builtin: ro.Builtin, Root: ro.ID == access.RootRoleID})
	}
	u.render(w, r, http.StatusOK, "admin_roles", page)
	return nil
}
