package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/models"
)

type groupJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

func groupOut(g models.Group) groupJSON { return groupJSON{g.ID, g.Name, g.Description} }

// groupID derives a group's id from its name at creation (the reference:
// "auto-calculated from the name"); it does not change on rename.
func groupID(name string) string { return ids.Derived("group", strings.ToLower(name))[:16] }

type groupRequest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func (r *groupRequest) validate() error {
	r.Name = strings.TrimSpace(r.Name)
	problems := map[string]string{}
	required(problems, map[string]string{"name": r.Name})
	return invalidIf(problems)
}

func groupNameTaken(err error, name string) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return apperr.Conflict("name_taken", "a group named %q exists", name)
	}
	return err
}

func (s *Server) loadGroup(c *gin.Context, id string) (models.Group, error) {
	var g models.Group
	err := s.DB.WithContext(c.Request.Context()).Where("id = ?", id).Take(&g).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return g, apperr.NotFound("group", id)
	}
	return g, err
}

func (s *Server) createGroup(c *gin.Context) error {
	var req groupRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	g := models.Group{ID: groupID(req.Name), Name: req.Name, Description: req.Description}
	// Not s.audited: the id may change inside the transaction.
	err := s.DB.WithContext(c.Request.Context()).Transaction(func(tx *gorm.DB) error {
		// A renamed group keeps its id, so a new group may derive an id in
		// use: fall back to a random one then.
		var n int64
		if err := tx.Model(&models.Group{}).Where("id = ?", g.ID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			g.ID = ids.New()[:16]
		}
		if err := tx.Create(&g).Error; err != nil {
			return groupNameTaken(err, g.Name)
		}
		return record(tx, principalOf(c), "group", "create", g.ID, "")
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, groupOut(g))
	return nil
}

func (s *Server) putGroup(c *gin.Context) error {
	g, err := s.loadGroup(c, c.Param("id"))
	if err != nil {
		return err
	}
	var req groupRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if err := req.validate(); err != nil {
		return err
	}
	g.Name, g.Description = req.Name, req.Description
	err = s.audited(c, "group", "update", g.ID, "", func(tx *gorm.DB) error {
		if err := tx.Select("name", "description", "updated_at").Save(&g).Error; err != nil {
			return groupNameTaken(err, g.Name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, groupOut(g))
	return nil
}

func (s *Server) getGroup(c *gin.Context) error {
	g, err := s.loadGroup(c, c.Param("id"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, groupOut(g))
	return nil
}

func (s *Server) listGroups(c *gin.Context) error {
	var rows []models.Group
	if err := s.DB.WithContext(c.Request.Context()).Order("lower(name)").Find(&rows).Error; err != nil {
		return err
	}
	out := make([]groupJSON, len(rows))
	for i, g := range rows {
		out[i] = groupOut(g)
	}
	c.JSON(http.StatusOK, gin.H{"groups": out})
	return nil
}

func (s *Server) deleteGroup(c *gin.Context) error {
	g, err := s.loadGroup(c, c.Param("id"))
	if err != nil {
		return err
	}
	err = s.audited(c, "group", "delete", g.ID, "", func(tx *gorm.DB) error {
		return tx.Delete(&models.Group{}, "id = ?", g.ID).Error
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": g.ID, "deleted": true})
	return nil
}

func (s *Server) addUserGroup(c *gin.Context) error {
	u, err := s.loadUser(c, c.Param("id"))
	if err != nil {
		return err
	}
	g, err := s.loadGroup(c, c.Param("group_id"))
	if err != nil {
		return err
	}
	// Not s.audited: adding an existing member changes nothing and records nothing.
	err = s.DB.WithContext(c.Request.Context()).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(`INSERT INTO user_groups (user_id, group_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, u.ID, g.ID)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		return record(tx, principalOf(c), "user", "add-group", u.ID, g.ID)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"ok": true})
	return nil
}

func (s *Server) removeUserGroup(c *gin.Context) error {
	u, err := s.loadUser(c, c.Param("id"))
	if err != nil {
		return err
	}
	g, err := s.loadGroup(c, c.Param("group_id"))
	if err != nil {
		return err
	}
	err = s.audited(c, "user", "remove-group", u.ID, g.ID, func(tx *gorm.DB) error {
		res := tx.Delete(&models.UserGroup{}, "user_id = ? AND group_id = ?", u.ID, g.ID)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return apperr.NotFound("membership of group", g.ID)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"ok": true})
	return nil
}

func (s *Server) userGroups(c *gin.Context) error {
	u, err := s.loadUser(c, c.Param("id"))
	if err != nil {
		return err
	}
	type entry struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	out := []entry{}
	if err := s.DB.WithContext(c.Request.Context()).Table("groups").Select("groups.id, groups.name").
		Joins("JOIN user_groups ug ON ug.group_id = groups.id").Where("ug.user_id = ?", u.ID).
		Order("lower(groups.name)").Scan(&out).Error; err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"groups": out})
	return nil
}
