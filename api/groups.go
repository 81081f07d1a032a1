package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
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

func (s *Server) loadGroup(c *gin.Context, id string) (models.Group, error) {
	return store.Group(s.db(c), id)
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
	err := s.db(c).Transaction(func(tx *store.DB) error {
		if err := store.CreateGroup(tx, &g); err != nil {
			return err
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
	err = s.auditedUpdate(c, "group", "update", g.ID, &g, store.GroupNameTaken(g.Name), "name", "description")
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
	rows, err := store.Groups(s.db(c))
	if err != nil {
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
	// The locations and containers the group restricted lose it: who may
	// find their items changes.
	err = s.audited(c, "group", "delete", g.ID, "", func(tx *store.DB) error {
		locs, ctrs, err := store.DeleteGroup(tx, g.ID)
		if err != nil {
			return err
		}
		return search.GroupsChanged(c.Request.Context(), tx, s.Search, locs, ctrs)
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
	err = s.db(c).Transaction(func(tx *store.DB) error {
		added, err := store.AddMember(tx, u.ID, g.ID)
		if err != nil || !added {
			return err
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
	err = s.audited(c, "user", "remove-group", u.ID, g.ID, func(tx *store.DB) error {
		return store.RemoveMember(tx, u.ID, g.ID)
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
	out, err := store.UserGroups(s.db(c), u.ID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"groups": out})
	return nil
}
