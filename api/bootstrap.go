package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
)

// tokenSecret returns the deployment's token signing secret, creating it on
// first start. Every api process of a deployment shares it through Postgres.
func tokenSecret(ctx context.Context, db *store.DB) ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	secret, err := store.EnsureSetting(db.WithContext(ctx), "token_secret", hex.EncodeToString(b))
	if err != nil {
		return nil, fmt.Errorf("token secret: %w", err)
	}
	return hex.DecodeString(secret)
}

// BootstrapAdmin creates the admin from ADMIN_EMAIL/ADMIN_PASSWORD when the
// platform has no users yet. It reports whether it created one. Concurrent
// starts are serialised (store.CreateFirstUser).
func BootstrapAdmin(ctx context.Context, db *store.DB, email, password string) (bool, error) {
	if email == "" {
		return false, nil
	}
	id := ids.New()
	ev, err := auditEvent(&Principal{User: models.User{ID: id}}, "user", "create", id, "")
	if err != nil {
		return false, err
	}
	created, err := store.CreateFirstUser(db.WithContext(ctx), ev, func() (models.User, error) {
		hash, err := auth.HashPassword(password)
		if err != nil {
			return models.User{}, err
		}
		return models.User{ID: id, Email: email, FirstName: "Admin", Enabled: true,
			RoleID: rootRoleID, Admin: true, PasswordHash: hash}, nil
	})
	if err != nil {
		return false, fmt.Errorf("bootstrap admin: %w", err)
	}
	return created, nil
}

// AdminState is what the database says of the bootstrap admin's
// credentials (ADMIN_EMAIL, ADMIN_PASSWORD), so that a start can tell an
// operator whether the password it holds works.
type AdminState int

// Admin states.
const (
	AdminCreated        AdminState = iota // created now, with the given password
	AdminPasswordWorks                    // the user exists and the password is theirs
	AdminPasswordDiffer                   // the user exists with another password
	AdminAbsent                           // other users exist, not this email
)

// CheckAdmin is BootstrapAdmin that also reports, when the platform already
// had users, whether email and password log in.
func CheckAdmin(ctx context.Context, db *store.DB, email, password string) (AdminState, error) {
	created, err := BootstrapAdmin(ctx, db, email, password)
	if err != nil || created {
		return AdminCreated, err
	}
	u, ok, err := store.UserByEmail(db.WithContext(ctx), email)
	if err != nil {
		return 0, fmt.Errorf("find admin: %w", err)
	}
	if !ok {
		return AdminAbsent, nil
	}
	ok, err = auth.CheckPassword(u.PasswordHash, password)
	if err != nil {
		return 0, fmt.Errorf("check admin password: %w", err)
	}
	if ok {
		return AdminPasswordWorks, nil
	}
	return AdminPasswordDiffer, nil
}

// ErrNoSuchUser is ResetPassword's error for an unknown email.
var ErrNoSuchUser = errors.New("no user has this email")

// ResetPassword sets a user's password (the operator's way back in, from the
// command line: the api lets users change only their own password). It is
// audited as the user's password update, initiated by nobody.
func ResetPassword(ctx context.Context, db *store.DB, email, password string) error {
	if n := len([]rune(password)); n < config.PasswordMin || n > config.PasswordMax {
		return fmt.Errorf("the password must be %d to %d characters", config.PasswordMin, config.PasswordMax)
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	db = db.WithContext(ctx)
	u, ok, err := store.UserByEmail(db, strings.TrimSpace(email))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoSuchUser, email)
	}
	ev, err := auditEvent(nil, "authenticate", "update-password", u.ID, "")
	if err != nil {
		return err
	}
	return store.Audited(db, ev, func(tx *store.DB) error { return store.SetPassword(tx, u.ID, hash) })
}
