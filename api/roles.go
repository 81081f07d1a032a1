package api

import (
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
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
	var r models.Role
	err := s.DB.WithContext(c.Request.Context()).Where("id = ?", id).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return r, apperr.NotFound("role", id)
	}
	return r, err
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
	var rows []models.Role
	if err := s.DB.WithContext(c.Request.Context()).Order("lower(name)").Find(&rows).Error; err != nil {
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
	err := s.audited(c, "role", "create", r.ID, "", func(tx *gorm.DB) error {
		if err := tx.Create(&r).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return apperr.Conflict("name_taken", "a role named %q exists", r.Name)
			}
			return err
		}
		return nil
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
		return apperr.Conflict("builtin_role", "the built-in role %q cannot be deleted", r.Name)
	}
	err = s.audited(c, "role", "delete", r.ID, "", func(tx *gorm.DB) error {
		var n int64
		// Lock the role row so a concurrent user creation cannot slip in.
		if err := tx.Exec(`SELECT 1 FROM roles WHERE id = ? FOR UPDATE`, r.ID).Error; err != nil {
			return err
		}
		if err := tx.Model(&models.User{}).Where("role_id = ?", r.ID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return apperr.Conflict("role_assigned", "the role is assigned to %d user(s)", n)
		}
		return tx.Delete(&models.Role{}, "id = ?", r.ID).Error
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
	db := s.DB.WithContext(c.Request.Context())
	var users []models.User
	if err := db.Where("role_id = ?", r.ID).Order("lower(email)").Find(&users).Error; err != nil {
		return err
	}
	var memberships []struct {
		UserID string
		Name   string
	}
	if err := db.Table("user_groups").Select("user_groups.user_id, groups.name").
		Joins("JOIN groups ON groups.id = user_groups.group_id").
		Where("user_groups.user_id IN (SELECT id FROM users WHERE role_id = ?)", r.ID).
		Order("lower(groups.name)").Scan(&memberships).Error; err != nil {
		return err
	}
	byUser := map[string][]string{}
	for _, m := range memberships {
		byUser[m.UserID] = append(byUser[m.UserID], m.Name)
	}
	out := make([]roleUserJSON, len(users))
	for i, u := range users {
		out[i].userJSON = userOut(u)
		names := byUser[u.ID]
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
		return apperr.Conflict("builtin_role", "the root role always holds every scope")
	}
	var r models.Role
	err := s.DB.WithContext(c.Request.Context()).Transaction(func(tx *gorm.DB) error {
		err := tx.Raw(`SELECT * FROM roles WHERE id = ? FOR UPDATE`, id).Scan(&r).Error
		if err != nil {
			return err
		}
		if r.ID == "" {
			return apperr.NotFound("role", id)
		}
		r.Scopes = change(r.Scopes)
		if r.Scopes == nil {
			r.Scopes = models.Strings{}
		}
		r.UpdatedAt = time.Now().UTC()
		if err := tx.Model(&models.Role{}).Where("id = ?", id).
			Updates(map[string]any{"scopes": r.Scopes, "updated_at": r.UpdatedAt}).Error; err != nil {
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
