package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/api/query"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/internal/ids"
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
	ctx := c.Request.Context()
	client := c.ClientIP()
	req := struct{ Email, Password string }{email, password}
	if wait, err := s.limiter.blocked(ctx, req.Email, client); err != nil {
		return models.User{}, err
	} else if wait > 0 {
		return models.User{}, apperr.TooManyRequests(wait, "too many failed logins; try again later")
	}
	u, _, err := query.UserByEmail(s.DB.WithContext(ctx), strings.TrimSpace(req.Email))
	if err != nil {
		return models.User{}, err
	}
	ok := auth.CheckPasswordOrDummy(u.PasswordHash, req.Password)
	if !ok || !u.Enabled {
		if err := s.limiter.failed(ctx, req.Email, client); err != nil {
			return models.User{}, err
		}
		return models.User{}, apperr.Unauthorized("invalid email or password")
	}
	if err := s.limiter.succeeded(ctx, req.Email); err != nil {
		return models.User{}, err
	}
	return u, nil
}
