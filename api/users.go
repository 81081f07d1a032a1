package api

import (
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

type userJSON struct {
	ID         string    `json:"id"`
	Email      string    `json:"email"`
	FirstName  string    `json:"first_name"`
	LastName   string    `json:"last_name"`
	Enabled    bool      `json:"enabled"`
	RoleID     string    `json:"role_id"`
	Admin      bool      `json:"admin"`
	Avatar     string    `json:"avatar"`
	CompanyUID string    `json:"company_uid"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// userSummaryJSON names a user inside another resource's answer: a
// comment's author, a compilation's author, who asked for a logo
// training. It is one shape everywhere (openapi.yaml UserSummary); id and
// user_id hold the same id, since the reference calls it user_id in a
// compilation's author and id elsewhere. A user deleted since has only
// its id.
type userSummaryJSON struct {
	ID         string `json:"id"`
	UserID     string `json:"user_id"`
	Email      string `json:"email"`
	FirstName  string `json:"first_name"`
	LastName   string `json:"last_name"`
	Avatar     string `json:"avatar"`
	Enabled    bool   `json:"enabled"`
	CompanyUID string `json:"company_uid"`
}

func userSummaryOut(id string, u store.UserSummary) userSummaryJSON {
	return userSummaryJSON{ID: id, UserID: id, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName,
		Avatar: u.Avatar, Enabled: u.Enabled, CompanyUID: u.CompanyUID}
}

func userOut(u models.User) userJSON {
	return userJSON{ID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName, Enabled: u.Enabled,
		RoleID: u.RoleID, Admin: u.Admin, Avatar: u.Avatar, CompanyUID: u.CompanyUID,
		CreatedAt: u.CreatedAt.UTC(), UpdatedAt: u.UpdatedAt.UTC()}
}

func validEmail(e string) bool {
	a, err := mail.ParseAddress(e)
	return err == nil && a.Address == e && len(e) <= 254
}

func passwordProblem(pw string) string {
	if n := len([]rune(pw)); n < config.PasswordMin || n > config.PasswordMax {
		return fmt.Sprintf("must be %d to %d characters", config.PasswordMin, config.PasswordMax)
	}
	return ""
}

func (s *Server) loadUser(c *gin.Context, id string) (models.User, error) {
	return store.User(s.db(c), id)
}

func (s *Server) roleExists(c *gin.Context, id string) (bool, error) {
	return store.RoleExists(s.db(c), id)
}

type createUserRequest struct {
	Email      string `json:"email"`
	FirstName  string `json:"first_name"`
	LastName   string `json:"last_name"`
	Password   string `json:"password"`
	RoleID     string `json:"role_id"`
	Admin      *bool  `json:"admin"`
	Enabled    *bool  `json:"enabled"`
	Avatar     string `json:"avatar"`
	CompanyUID string `json:"company_uid"`
}

func (s *Server) createUser(c *gin.Context) error {
	var req createUserRequest
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	p := principalOf(c)
	problems := map[string]string{}
	req.Email = strings.TrimSpace(req.Email)
	if !validEmail(req.Email) {
		problems["email"] = "must be a valid email address"
	}
	if pp := passwordProblem(req.Password); pp != "" {
		problems["password"] = pp
	}
	if req.RoleID == "" {
		req.RoleID = "default-user"
	}
	if ok, err := s.roleExists(c, req.RoleID); err != nil {
		return err
	} else if !ok {
		problems["role_id"] = "no such role"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	if !p.IsAdmin() && ((req.Admin != nil && *req.Admin) || req.RoleID == rootRoleID) {
		return apperr.Forbidden("only administrators can create administrators")
	}
	hash, err := auth.HashPassword(req.Password)
	if err != nil {
		return err
	}
	u := models.User{ID: ids.New(), Email: req.Email, FirstName: req.FirstName, LastName: req.LastName,
		Enabled: req.Enabled == nil || *req.Enabled, RoleID: req.RoleID, Admin: req.Admin != nil && *req.Admin,
		Avatar: req.Avatar, CompanyUID: req.CompanyUID, PasswordHash: hash}
	err = s.audited(c, "user", "create", u.ID, "", func(tx *store.DB) error {
		return store.Insert(tx, &u, store.EmailTaken)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, userOut(u))
	return nil
}

func (s *Server) getUser(c *gin.Context) error {
	u, err := s.loadUser(c, c.Param("id"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, userOut(u))
	return nil
}

func (s *Server) listUsers(c *gin.Context) error {
	email, byEmail := c.GetQuery("email")
	rows, err := store.Users(s.db(c), email, byEmail)
	if err != nil {
		return err
	}
	out := make([]userJSON, len(rows))
	for i, u := range rows {
		out[i] = userOut(u)
	}
	if byEmail {
		c.JSON(http.StatusOK, out)
		return nil
	}
	c.JSON(http.StatusOK, gin.H{"users": out})
	return nil
}

// userPatch is the body of PATCH (any subset) and, with Email and RoleID
// required, of PUT. Unknown fields (id, password, created_at...) are refused.
type userPatch struct {
	Email      *string `json:"email"`
	FirstName  *string `json:"first_name"`
	LastName   *string `json:"last_name"`
	Enabled    *bool   `json:"enabled"`
	RoleID     *string `json:"role_id"`
	Admin      *bool   `json:"admin"`
	Avatar     *string `json:"avatar"`
	CompanyUID *string `json:"company_uid"`
}

func (s *Server) putUser(c *gin.Context) error {
	var req userPatch
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	problems := map[string]string{}
	if req.Email == nil {
		problems["email"] = "is required"
	}
	if req.RoleID == nil {
		problems["role_id"] = "is required"
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	return s.updateUser(c, req)
}

func (s *Server) patchUser(c *gin.Context) error {
	var req userPatch
	if err := decodeStrictJSON(c, &req); err != nil {
		return err
	}
	return s.updateUser(c, req)
}

func (s *Server) updateUser(c *gin.Context, req userPatch) error {
	p := principalOf(c)
	u, err := s.loadUser(c, c.Param("id"))
	if err != nil {
		return err
	}
	// Mass assignment: only administrators change privileges or touch
	// administrator accounts.
	if !p.IsAdmin() {
		if req.Admin != nil && *req.Admin != u.Admin {
			return apperr.Forbidden("only administrators can change admin")
		}
		if req.RoleID != nil && *req.RoleID != u.RoleID {
			return apperr.Forbidden("only administrators can change role_id")
		}
		if u.Admin || u.RoleID == rootRoleID {
			return apperr.Forbidden("only administrators can change an administrator")
		}
	}
	problems := map[string]string{}
	if req.Email != nil {
		e := strings.TrimSpace(*req.Email)
		if !validEmail(e) {
			problems["email"] = "must be a valid email address"
		}
		u.Email = e
	}
	if req.RoleID != nil {
		if ok, err := s.roleExists(c, *req.RoleID); err != nil {
			return err
		} else if !ok {
			problems["role_id"] = "no such role"
		}
		u.RoleID = *req.RoleID
	}
	if err := invalidIf(problems); err != nil {
		return err
	}
	if req.Enabled != nil && !*req.Enabled && u.ID == p.User.ID {
		return apperr.Conflict(apperr.CodeCannotDisableSelf, "you cannot disable your own account")
	}
	assign(&u.FirstName, req.FirstName)
	assign(&u.LastName, req.LastName)
	assign(&u.Avatar, req.Avatar)
	assign(&u.CompanyUID, req.CompanyUID)
	assign(&u.Admin, req.Admin)
	wasEnabled := u.Enabled
	assign(&u.Enabled, req.Enabled)
	action := "update"
	if wasEnabled != u.Enabled {
		action = map[bool]string{true: "enable", false: "disable"}[u.Enabled]
	}
	err = s.auditedUpdate(c, "user", action, u.ID, &u, store.EmailTaken, "email", "first_name", "last_name", "enabled", "role_id", "admin", "avatar", "company_uid")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, userOut(u))
	return nil
}

func assign[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func (s *Server) deleteUser(c *gin.Context) error {
	p := principalOf(c)
	u, err := s.loadUser(c, c.Param("id"))
	if err != nil {
		return err
	}
	if u.ID == p.User.ID {
		return apperr.Conflict(apperr.CodeCannotDeleteSelf, "you cannot delete your own account")
	}
	if !p.IsAdmin() && (u.Admin || u.RoleID == rootRoleID) {
		return apperr.Forbidden("only administrators can delete an administrator")
	}
	err = auditedDelete[models.User](s, c, "user", u.ID, "user")
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": u.ID, "deleted": true})
	return nil
}

// changePassword changes the caller's own password; nobody, administrators
// included, changes another user's password through the API.
func (s *Server) changePassword(c *gin.Context) error {
	p := principalOf(c)
	if c.Param("id") != p.User.ID {
		return apperr.Forbidden("a password can only be changed by its owner")
	}
	var req struct {
		Password string `json:"password"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if pp := passwordProblem(req.Password); pp != "" {
		return apperr.InvalidField("password", pp)
	}
	hash, err := auth.HashPassword(req.Password)
	if err != nil {
		return err
	}
	err = s.audited(c, "authenticate", "update-password", p.User.ID, "", func(tx *store.DB) error {
		return store.SetPassword(tx, p.User.ID, hash)
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"id": p.User.ID, "updated": true})
	return nil
}
