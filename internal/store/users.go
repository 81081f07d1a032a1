package store

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// User loads a user: 404 when unknown.
func User(db *gorm.DB, id string) (models.User, error) { return Take[models.User](db, "user", id) }

// Users lists the users by email; a non-empty email keeps the one with
// that address (case-insensitive).
func Users(db *gorm.DB, email string, byEmail bool) ([]models.User, error) {
	q := db.Order("lower(email)")
	if byEmail {
		q = q.Where("lower(email) = lower(?)", strings.TrimSpace(email))
	}
	var rows []models.User
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return rows, nil
}

// EmailTaken turns a unique violation of the email into 409 email_taken.
func EmailTaken(err error) error {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return apperr.Conflict(apperr.CodeEmailTaken, "a user with this email exists")
	}
	return err
}

// SetPassword stores a user's new password hash.
func SetPassword(tx *gorm.DB, userID, hash string) error {
	if err := tx.Model(&models.User{}).Where("id = ?", userID).
		Updates(map[string]any{"password_hash": hash, "updated_at": time.Now().UTC()}).Error; err != nil {
		return fmt.Errorf("set password of user %s: %w", userID, err)
	}
	return nil
}

// firstUserLock is the advisory lock that serialises CreateFirstUser
// across the processes of a deployment starting together.
const firstUserLock = 727275

// CreateFirstUser creates the user that build makes, and records ev, in
// one transaction, when the platform has no user yet; it reports whether
// it did. build runs only then (it may hash a password, which is slow).
// Concurrent calls are serialised by an advisory lock: one creates.
func CreateFirstUser(db *gorm.DB, ev Event, build func() (models.User, error)) (created bool, err error) {
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, firstUserLock).Error; err != nil {
			return fmt.Errorf("lock users: %w", err)
		}
		var n int64
		if err := tx.Model(&models.User{}).Count(&n).Error; err != nil {
			return fmt.Errorf("count users: %w", err)
		}
		if n > 0 {
			return nil
		}
		u, err := build()
		if err != nil {
			return err
		}
		if err := Insert(tx, &u, nil); err != nil {
			return err
		}
		created = true
		return Record(tx, ev)
	})
	if err != nil {
		return false, err
	}
	return created, nil
}

// UserSummary is the author summary embedded in comments, compilations
// and logo training requests.
type UserSummary struct {
	ID, Email, FirstName, LastName, Avatar, CompanyUID string
	Enabled                                            bool
}

// UserSummaries loads the summaries of the given users by id; unknown
// (deleted) users are absent.
func UserSummaries(db *gorm.DB, ids []string) (map[string]UserSummary, error) {
	out := map[string]UserSummary{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []models.User
	if err := db.Select("id", "email", "first_name", "last_name", "avatar", "company_uid", "enabled").
		Where("id = ANY(?)", models.Strings(ids)).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load authors: %w", err)
	}
	for _, u := range rows {
		out[u.ID] = UserSummary{ID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName,
			Avatar: u.Avatar, CompanyUID: u.CompanyUID, Enabled: u.Enabled}
	}
	return out, nil
}
