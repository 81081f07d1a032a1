package api

import (
	"context"
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

// login exchanges email and password for a bearer token. Unknown email,
// wrong password and disabled account all answer the same 401 after the
// same work; failures are rate limited per account and per client.
func (s *Server) login(c *gin.Context) error {
	var req struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	problems := map[string]string{}
	required(problems, map[string]string{"email": req.Email, "password": req.Password})
	if err := invalidIf(problems); err != nil {
		return err
	}
	u, err := s.checkPassword(c, req.Email, req.Password)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	token, exp, err := s.tokens.IssueLogin(u.ID, ids.New(), s.Config.TokenTTL)
	if err != nil {
		return err
	}
	if err := record(s.DB.WithContext(ctx), &Principal{User: u}, "authenticate", "login", u.ID, ""); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"token": token, "expires_at": exp.UTC().Format(time.RFC3339), "user": userOut(u)})
	return nil
}

// checkPassword returns the enabled user with that email and password;
// unknown email, wrong password and disabled account all give the same 401
// after the same work, and failures are rate limited per account and per
// client (429).
func (s *Server) checkPassword(c *gin.Context, email, password string) (models.User, error) {
	return s.passwordOf(c.Request.Context(), c.ClientIP(), email, password)
}

func (s *Server) passwordOf(ctx context.Context, client, email, password string) (models.User, error) {
	if wait, err := s.limiter.blocked(ctx, email, client); err != nil {
		return models.User{}, err
	} else if wait > 0 {
		return models.User{}, apperr.TooManyRequests(wait, "too many failed logins; try again later")
	}
	u, _, err := store.UserByEmail(s.DB.WithContext(ctx), strings.TrimSpace(email))
	if err != nil {
		return models.User{}, err
	}
	ok := auth.CheckPasswordOrDummy(u.PasswordHash, password)
	if !ok || !u.Enabled {
		if err := s.limiter.failed(ctx, email, client); err != nil {
			return models.User{}, err
		}
		return models.User{}, apperr.Unauthorized("invalid email or password")
	}
	if err := s.limiter.succeeded(ctx, email); err != nil {
		return models.User{}, err
	}
	return u, nil
}

// SignIn is the web UI's password check: that of POST /api/login (the same
// answers, the same rate limits per account and per client, the same audit
// event "authenticate: login" on success). Its errors are apperr errors
// (401, 429 with RetryAfter). r is a request the api handed to its pages
// (MountPages), which carries the client address as the api's router
// resolved it (trusted proxies).
func (s *Server) SignIn(r *http.Request, email, password string) (models.User, error) {
	ctx := r.Context()
	u, err := s.passwordOf(ctx, clientIPOf(r), email, password)
	if err != nil {
		return u, err
	}
	if err := record(s.DB.WithContext(ctx), &Principal{User: u}, "authenticate", "login", u.ID, ""); err != nil {
		return models.User{}, err
	}
	return u, nil
}
