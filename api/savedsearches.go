package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// Saved searches belong to their user: each user lists and changes only
// their own (names are unique per user); other users' ids answer 404.

type savedSearchJSON struct {
	SavedSearchID string    `json:"saved_search_id"`
	Name          string    `json:"name"`
	Params        string    `json:"params"`
	UserID        string    `json:"user_id"`
	CreatedAt     time.Time `json:"created_at"`
}

func savedSearchOut(s models.SavedSearch) savedSearchJSON {
	return savedSearchJSON{SavedSearchID: s.ID, Name: s.Name, Params: s.Params, UserID: s.UserID, CreatedAt: s.CreatedAt.UTC()}
}

const maxSavedSearchParams = 8192

func (s *Server) listSavedSearches(c *gin.Context) error {
	rows, err := store.SavedSearches(s.db(c), principalOf(c).User.ID)
	if err != nil {
		return err
	}
	out := make([]savedSearchJSON, len(rows))
	for i, r := range rows {
		out[i] = savedSearchOut(r)
	}
	c.JSON(http.StatusOK, gin.H{"saved_searches": out})
	return nil
}

func (s *Server) createSavedSearch(c *gin.Context) error {
	var req struct {
		Name   string `json:"name"`
		Params string `json:"params"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	req.Name = strings.TrimSpace(req.Name)
	problems := map[string]string{}
	required(problems, map[string]string{"name": req.Name})
	if len(req.Name) > 200 {
		problems["name"] = "must be at most 200 characters"
	}
	if len(req.Params) > maxSavedSearchParams {
		problems["params"] = "is too long"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	p := principalOf(c)
	row := models.SavedSearch{ID: ids.New(), UserID: p.User.ID, Name: req.Name, Params: req.Params}
	err := s.audited(c, "savedsearch", "create", row.ID, "", func(tx *store.DB) error {
		return store.Insert(tx, &row, store.SavedSearchNameTaken(row.Name))
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, savedSearchOut(row))
	return nil
}

func (s *Server) loadSavedSearch(c *gin.Context) (models.SavedSearch, error) {
	return store.SavedSearch(s.db(c), principalOf(c).User.ID, c.Param("id"))
}

func (s *Server) patchSavedSearch(c *gin.Context) error {
	row, err := s.loadSavedSearch(c)
	if err != nil {
		return err
	}
	var req struct {
		Name   *string `json:"name"`
		Params *string `json:"params"`
	}
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	if req.Name != nil {
		n := strings.TrimSpace(*req.Name)
		if n == "" || len(n) > 200 {
			return apperr.InvalidField("name", "must be 1 to 200 characters")
		}
		row.Name = n
	}
	if req.Params != nil {
		if len(*req.Params) > maxSavedSearchParams {
			return apperr.InvalidField("params", "is too long")
		}
		row.Params = *req.Params
	}
	err = s.auditedUpdate(c, "savedsearch", "update", row.ID, &row, store.SavedSearchNameTaken(row.Name), "name", "params")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, savedSearchOut(row))
	return nil
}

func (s *Server) deleteSavedSearch(c *gin.Context) error {
	row, err := s.loadSavedSearch(c)
	if err != nil {
		return err
	}
	err = auditedDelete[models.SavedSearch](s, c, "savedsearch", row.ID, "saved search")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"saved_search_id": row.ID, "deleted": true})
	return nil
}
