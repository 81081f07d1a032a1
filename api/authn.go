package api

import (
	"context"
	"strings"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/api/query"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/models"
)

const principalKey = "principal"

// rootRoleID is the built-in role holding every scope.
const rootRoleID = "root"

// Principal is the authenticated caller of a request.
type Principal struct {
	User   models.User
	Scopes map[string]bool
	KeyID  string // set when the credential is an API key

	groups []string // loaded on first use
	loaded bool
}

// IsAdmin: admins (and holders of the root role) pass every scope and see
// every object.
func (p *Principal) IsAdmin() bool { return p.User.Admin || p.User.RoleID == rootRoleID }

// Can reports whether the caller holds scope.
func (p *Principal) Can(scope string) bool { return p.IsAdmin() || p.Scopes[scope] }

// GroupIDs returns the caller's group ids.
func (p *Principal) GroupIDs(ctx context.Context, db *gorm.DB) ([]string, error) {
	if !p.loaded {
		groups, err := query.UserGroupIDs(db.WithContext(ctx), p.User.ID)
		if err != nil {
			return nil, err
		}
		p.groups = groups
		p.loaded = true
	}
	return p.groups, nil
}

func principalOf(c *gin.Context) *Principal {
	p, _ := c.Get(principalKey)
	pr, _ := p.(*Principal)
	return pr
}

var errBadCredential = apperr.Unauthorized("missing or invalid credential")

// authenticate resolves the bearer credential: a login token or an API key
// jwt. Every check hits the database so that disabling a user or a key, or
// deleting a key, takes effect on the next request.
func (s *Server) authenticate(c *gin.Context) (*Principal, error) {
	h := c.GetHeader("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, errBadCredential
	}
	claims, err := s.tokens.Parse(strings.TrimSpace(token))
	if err != nil {
		return nil, errBadCredential
	}
	db := s.db(c)
	p := &Principal{}
	if claims.Kind == auth.KindAPIKey {
		key, ok, err := query.ActiveKey(db, claims.KeyID, auth.HashToken(strings.TrimSpace(token)), claims.Subject)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errBadCredential
		}
		p.KeyID = key.ID
	}
	return s.loadPrincipal(c, claims.Subject, p)
}

// loadPrincipal fills p with the enabled user userID and the scopes of its
// role (errBadCredential when there is no such enabled user).
func (s *Server) loadPrincipal(c *gin.Context, userID string, p *Principal) (*Principal, error) {
	db := s.db(c)
	u, ok, err := query.EnabledUser(db, userID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errBadCredential
	}
	p.User = u
	scopes, err := query.RoleScopes(db, p.User.RoleID)
	if err != nil {
		return nil, err
	}
	p.Scopes = make(map[string]bool, len(scopes))
	for _, sc := range scopes {
		p.Scopes[sc] = true
	}
	return p, nil
}
