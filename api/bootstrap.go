package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/internal/auth"
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
