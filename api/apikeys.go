package api

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

type apiKeyJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	JWT       string    `json:"jwt,omitempty"` // create response only
	Active    bool      `json:"active"`
	UserID    string    `json:"user_id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func apiKeyOut(k models.APIKey) apiKeyJSON {
	return apiKeyJSON{ID: k.ID, Name: k.Name, Active: k.Active, UserID: k.UserID,
		CreatedAt: k.CreatedAt.UTC(), UpdatedAt: k.UpdatedAt.UTC()}
}

func (s *Server) createAPIKey(c *gin.Context) error {
	var req struct {
		Name *string `json:"name"`
	}
	// The body is optional: {} or nothing creates a key with a default name.
	if c.Request.ContentLength != 0 {
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
	}
	p := principalOf(c)
	name := fmt.Sprintf("API key %s", time.Now().UTC().Format("2006-01-02 15:04:05"))
	if req.Name != nil {
		if n := strings.TrimSpace(*req.Name); n != "" {
			name = n
		}
	}
	if len(name) > 200 {
		return apperr.InvalidField("name", "must be at most 200 characters")
	}
	k := models.APIKey{ID: ids.New(), Name: name, UserID: p.User.ID, Active: true}
	jwt, err := s.tokens.IssueAPIKey(k.ID, p.User.ID)
	if err != nil {
		return err
	}
	k.TokenHash = auth.HashToken(jwt)
	err = s.audited(c, "apikey", "create", k.ID, "", func(tx *store.DB) error {
		return store.Insert(tx, &k, nil)
	})
	if err != nil {
		return err
	}
	out := apiKeyOut(k)
	out.JWT = jwt
	c.JSON(http.StatusCreated, out)
	return nil
}

// loadOwnKey finds a key the caller may manage: their own, or any for an
// administrator. Other users' keys answer 404, not 403, so ids don't leak.
func (s *Server) loadOwnKey(c *gin.Context) (models.APIKey, error) {
	v, err := s.viewer(c)
	if err != nil {
		return models.APIKey{}, err
	}
	return store.APIKey(s.db(c), v, c.Param("id"))
}

func (s *Server) patchAPIKey(c *gin.Context) error {
	k, err := s.loadOwnKey(c)
	if err != nil {
		return err
	}
	var req struct {
		Name   *string `json:"name"`
		Active *bool   `json:"active"`
	}
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	action := "update"
	if req.Name != nil {
		n := strings.TrimSpace(*req.Name)
		if n == "" || len(n) > 200 {
			return apperr.InvalidField("name", "must be 1 to 200 characters")
		}
		k.Name = n
	}
	if req.Active != nil && *req.Active != k.Active {
		k.Active = *req.Active
		action = map[bool]string{true: "enable", false: "disable"}[k.Active]
	}
	err = s.auditedUpdate(c, "apikey", action, k.ID, &k, nil, "name", "active")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, apiKeyOut(k))
	return nil
}

func (s *Server) listAPIKeys(c *gin.Context) error {
	v, err := s.viewer(c)
	if err != nil {
		return err
	}
	rows, err := store.APIKeys(s.db(c), v)
	if err != nil {
		return err
	}
	out := make([]apiKeyJSON, len(rows))
	for i, k := range rows {
		out[i] = apiKeyOut(k)
	}
	c.JSON(http.StatusOK, gin.H{"api-keys": out})
	return nil
}

func (s *Server) deleteAPIKey(c *gin.Context) error {
	k, err := s.loadOwnKey(c)
	if err != nil {
		return err
	}
	err = auditedDelete[models.APIKey](s, c, "apikey", k.ID, "api key")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": k.ID, "deleted": true})
	return nil
}
