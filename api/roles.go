package api

import (
	"net/http"
	"sort"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

type roleJSON struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Scopes      []string `json:"scopes"`
}

// roleScopes: root always holds the whole catalogue, whatever is stored.
func roleScopes(r models.Role) []string {
	if r.ID == rootRoleID {
		return allScopes()
	}
	out := append([]string{}, r.Scopes...)
	sort.Strings(out)
	return out
}

func roleOut(r models.Role) roleJSON {
	return roleJSON{ID: r.ID, Name: r.Name, Description: r.Description, Scopes: roleScopes(r)}
}

func (s *Server) loadRole(c *gin.Context, id string) (models.Role, error) {
	return store.Role(s.db(c), id)
}

// checkScopes refuses unknown scope names with 400.
func checkScopes(field string, scopes []string) error {
	var bad []string
	for _, sc := range scopes {
		if !knownScope(sc) {
			bad = append(bad, sc)
		}
	}
	if len(bad) > 0 {
		return apperr.InvalidField(field, "unknown scopes: "+strings.Join(bad, ", "))
	}
	return nil
}

func (s *Server) listRoles(c *gin.Context) error {
	rows, err := store.Roles(s.db(c))
	if err != nil {
		return err
	}
	type entry struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	out := make([]entry, len(rows))
	for i, r := range rows {
		out[i] = entry{r.ID, r.Name, r.Description}
	}
	c.JSON(http.StatusOK, gin.H{"roles": out})
	return nil
}

func (s *Server) getRole(c *gin.Context) error {
	r, err := s.loadRole(c, c.Param("id"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, roleOut(r))
	return nil
}

func (s *Server) createRole(c *gin.Context) error {
	var req struct {
		ID          string   `json:"id"`
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Scopes      []string `json:"scopes"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	problems := map[string]string{}
	req.Name = strings.TrimSpace(req.Name)
	required(problems, map[string]string{"name": req.Name})
	if req.ID != "" {
		problems["id"] = "is assigned by the server"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	if err := checkScopes("scopes", req.Scopes); err != nil {
		return err
	}
	r := models.Role{ID: ids.New(), Name: req.Name, Description: req.Description, Scopes: dedupe(req.Scopes)}
	err := s.audited(c, "role", "create", r.ID, "", func(tx *store.DB) error {
		return store.Insert(tx, &r, store.RoleNameTaken(r.Name))
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, roleOut(r))
	return nil
}

func (s *Server) deleteRole(c *gin.Context) error {
	r, err := s.loadRole(c, c.Param("id"))
	if err != nil {
		return err
	}
	if r.Builtin {
		return apperr.Conflict(apperr.CodeBuiltinRole, "the built-in role %q cannot be deleted", r.Name)
	}
	err = s.audited(c, "role", "delete", r.ID, "", func(tx *store.DB) error {
		return store.DeleteUnassignedRole(tx, r.ID)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": r.ID, "deleted": true})
	return nil
}

type roleUserJSON struct {
	userJSON
	Groups struct {
		Count     int      `json:"count"`
		Shortlist []string `json:"shortlist"`
	} `json:"groups"`
}

// roleUsers lists the users of a role with a short list of their group names.
func (s *Server) roleUsers(c *gin.Context) error {
	r, err := s.loadRole(c, c.Param("id"))
	if err != nil {
		return err
	}
	members, err := store.RoleMembers(s.db(c), r.ID)
	if err != nil {
		return err
	}
	out := make([]roleUserJSON, len(members))
	for i, m := range members {
		out[i].userJSON = userOut(m.User)
		names := m.Groups
		out[i].Groups.Count = len(names)
		if len(names) > 0 {
			out[i].Groups.Shortlist = names[:min(3, len(names))]
		}
	}
	c.JSON(http.StatusOK, out)
	return nil
}

func (s *Server) listScopes(c *gin.Context) error {
	c.JSON(http.StatusOK, scopeCatalogue)
	return nil
}

func (s *Server) addRoleScopes(c *gin.Context) error {
	var req struct {
		Scopes []string `json:"scopes"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if len(req.Scopes) == 0 {
		return apperr.InvalidField("scopes", "must list at least one scope")
	}
	if err := checkScopes("scopes", req.Scopes); err != nil {
		return err
	}
	return s.changeRoleScopes(c, "add-scopes", func(cur []string) []string { return dedupe(append(cur, req.Scopes...)) })
}

func (s *Server) removeRoleScopes(c *gin.Context) error {
	var names []string
	for _, sc := range strings.Split(c.Param("scopes"), ",") {
		if sc = strings.TrimSpace(sc); sc != "" {
			names = append(names, sc)
		}
	}
	if len(names) == 0 {
		return apperr.InvalidField("scopes", "must list at least one scope")
	}
	if err := checkScopes("scopes", names); err != nil {
		return err
	}
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	return s.changeRoleScopes(c, "remove-scopes", func(cur []string) []string {
		var out []string
		for _, sc := range cur {
			if !drop[sc] {
				out = append(out, sc)
			}
		}
		return out
	})
}

func (s *Server) changeRoleScopes(c *gin.Context, action string, change func([]string) []string) error {
	id := c.Param("id")
	if id == rootRoleID {
		return apperr.Conflict(apperr.CodeBuiltinRole, "the root role always holds every scope")
	}
	var r models.Role
	err := s.db(c).Transaction(func(tx *store.DB) error {
		var err error
		if r, err = store.ChangeRoleScopes(tx, id, change); err != nil {
			return err
		}
		return record(tx, principalOf(c), "role", action, id, "")
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, roleOut(r))
	return nil
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
