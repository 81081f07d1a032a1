package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/internal/auth"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/models"
)

// tokenSecret returns the deployment's token signing secret, creating it on
// first start. Every api process of a deployment shares it through Postgres.
func tokenSecret(ctx context.Context, db *gorm.DB) ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	fresh := models.Setting{Key: "token_secret", Value: hex.EncodeToString(b)}
	if err := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&fresh).Error; err != nil {
		return nil, fmt.Errorf("store token secret: %w", err)
	}
	var s models.Setting
	if err := db.WithContext(ctx).Where("key = ?", "token_secret").Take(&s).Error; err != nil {
		return nil, fmt.Errorf("load token secret: %w", err)
	}
	return hex.DecodeString(s.Value)
}

// BootstrapAdmin creates the admin from ADMIN_EMAIL/ADMIN_PASSWORD when the
// platform has no users yet. It reports whether it created one. Concurrent
// starts are serialised by an advisory lock.
func BootstrapAdmin(ctx context.Context, db *gorm.DB, email, password string) (bool, error) {
	if email == "" {
		return false, nil
	}
	created := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(727275)`).Error; err != nil {
			return err
		}
		var n int64
		if err := tx.Model(&models.User{}).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		hash, err := auth.HashPassword(password)
		if err != nil {
			return err
		}
		u := models.User{ID: ids.New(), Email: email, FirstName: "Admin", Enabled: true,
			RoleID: rootRoleID, Admin: true, PasswordHash: hash}
		if err := tx.Create(&u).Error; err != nil {
			return err
		}
		created = true
		return tx.Create(&models.AuditEvent{ID: ids.New(), UserID: u.ID, ActionKey: "create",
			TargetKind: "user", TargetID: u.ID, Time: time.Now().UTC()}).Error
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
func CheckAdmin(ctx context.Context, db *gorm.DB, email, password string) (AdminState, error) {
	created, err := BootstrapAdmin(ctx, db, email, password)
	if err != nil || created {
		return AdminCreated, err
	}
	var u models.User
	err = db.WithContext(ctx).Where("lower(email) = lower(?)", email).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return AdminAbsent, nil
	} else if err != nil {
		return 0, fmt.Errorf("find admin: %w", err)
	}
	ok, err := auth.CheckPassword(u.PasswordHash, password)
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
func ResetPassword(ctx context.Context, db *gorm.DB, email, password string) error {
	if n := len([]rune(password)); n < config.PasswordMin || n > config.PasswordMax {
		return fmt.Errorf("the password must be %d to %d characters", config.PasswordMin, config.PasswordMax)
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u models.User
		err := tx.Where("lower(email) = lower(?)", strings.TrimSpace(email)).Take(&u).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("%w: %s", ErrNoSuchUser, email)
		} else if err != nil {
			return err
		}
		if err := tx.Model(&u).Updates(map[string]any{"password_hash": hash, "updated_at": time.Now().UTC()}).Error; err != nil {
			return err
		}
		return record(tx, nil, "authenticate", "update-password", u.ID, "")
	})
}
