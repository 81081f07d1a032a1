package api

import (
	"context"
	"errors"
	"strings"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

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
		if err := db.WithContext(ctx).Model(&models.UserGroup{}).Where("user_id = ?", p.User.ID).
			Order("group_id").Pluck("group_id", &p.groups).Error; err != nil {
			return nil, err
		}
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
		var key models.APIKey
		err := db.Where("id = ? AND token_hash = ?", claims.KeyID, auth.HashToken(strings.TrimSpace(token))).Take(&key).Error
		if errors.Is(err, gorm.ErrRecordNotFound) || (err == nil && (!key.Active || key.UserID != claims.Subject)) {
			return nil, errBadCredential
		}
		if err != nil {
			return nil, err
		}
		p.KeyID = key.ID
	}
	err = db.Where("id = ?", claims.Subject).Take(&p.User).Error
	if errors.Is(err, gorm.ErrRecordNotFound) || (err == nil && !p.User.Enabled) {
		return nil, errBadCredential
	}
	if err != nil {
		return nil, err
	}
	var role models.Role
	if err := db.Where("id = ?", p.User.RoleID).Take(&role).Error; err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	p.Scopes = make(map[string]bool, len(role.Scopes))
	for _, sc := range role.Scopes {
		p.Scopes[sc] = true
	}
	return p, nil
}
