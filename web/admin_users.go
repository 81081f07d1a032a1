package web

import (
	"net/http"
	"strings"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
)

// usersPage is GET /admin/users: every user with their role and groups;
// creating, editing and deleting them (users:write) and their groups
// (groups:write) go through the api from admin.js.
type usersPage struct {
	adminBase
	Can    can
	Users  []userRow
	Roles  []option
	Groups []option // every group, for the membership checkboxes (groups:read)
}

type userRow struct {
	ID, Email, FirstName, LastName, Name string
	RoleID, Role                         string
	Enabled, Admin, Self                 bool
	Groups                               []store.GroupRef
	GroupIDs                             string // space-separated, for admin.js
}

type option struct{ Value, Label string }

func (u *UI) adminUsersPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	db := u.DB.WithContext(r.Context())
	page := &usersPage{adminBase: u.adminBase(r, p, "Users", "users"),
		Can: scopesOf(p, "users:write", "groups:read", "groups:write", "roles:read")}
	roleNames := map[string]string{}
	// Role names show to holders of roles:read; others see the role's id,
	// as the users api answers it.
	if page.Can["roles:read"] {
		roles, err := store.Roles(db)
		if err != nil {
			return err
		}
		for _, ro := range roles {
			roleNames[ro.ID] = ro.Name
			page.Roles = append(page.Roles, option{ro.ID, ro.Name})
		}
	}
	users, err := store.Users(db, "", false)
	if err != nil {
		return err
	}
	if page.Can["groups:read"] {
		groups, err := store.Groups(db)
		if err != nil {
			return err
		}
		for _, g := range groups {
			page.Groups = append(page.Groups, option{g.ID, g.Name})
		}
	}
	seenRoles := map[string]bool{}
	for _, us := range users {
		row := userRow{ID: us.ID, Email: us.Email, FirstName: us.FirstName, LastName: us.LastName,
			Name: strings.TrimSpace(us.FirstName + " " + us.LastName), RoleID: us.RoleID, Role: us.RoleID,
			Enabled: us.Enabled, Admin: us.Admin, Self: us.ID == p.User.ID}
		if n, ok := roleNames[us.RoleID]; ok {
			row.Role = n
		}
		if !page.Can["roles:read"] && !seenRoles[us.RoleID] {
			seenRoles[us.RoleID] = true
			page.Roles = append(page.Roles, option{us.RoleID, us.RoleID})
		}
		if page.Can["groups:read"] {
			if row.Groups, err = store.UserGroups(db, us.ID); err != nil {
				return err
			}
			ids := make([]string, len(row.Groups))
			for i, g := range row.Groups {
				ids[i] = g.ID
			}
			row.GroupIDs = strings.Join(ids, " ")
		}
		page.Users = append(page.Users, row)
	}
	u.render(w, r, http.StatusOK, "admin_users", page)
	return nil
}
