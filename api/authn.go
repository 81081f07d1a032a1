package api

import (
	"errors"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/internal/store"
)

const principalKey = "principal"

// rootRoleID is the built-in role holding every scope.
const rootRoleID = access.RootRoleID

// Principal is the authenticated caller of a request (see internal/access: the
// web pages load theirs the same way).
type Principal = access.Principal

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
	var key *store.KeyCheck
	if claims.Kind == auth.KindAPIKey {
		key = &store.KeyCheck{ID: claims.KeyID, TokenHash: auth.HashToken(strings.TrimSpace(token))}
	}
	return s.loadPrincipal(c, claims.Subject, key)
}

// loadPrincipal loads the enabled user userID with the scopes of its role,
// and with key the user's active API key of it (errBadCredential when
// there is no such enabled user or key).
func (s *Server) loadPrincipal(c *gin.Context, userID string, key *store.KeyCheck) (*Principal, error) {
	p, err := access.Load(c.Request.Context(), s.DB, userID, key, nil)
	if errors.Is(err, access.ErrNoUser) {
		return nil, errBadCredential
	}
	return p, err
}
