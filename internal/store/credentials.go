package store

import (
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Every request looks its credential up, so that disabling a user or a
// key, or deleting a key, takes effect on the next request.

// ActiveKey loads the active API key of this id and token hash owned by
// userID; ok is false when there is none.
func ActiveKey(db *gorm.DB, keyID, tokenHash, userID string) (models.APIKey, bool, error) {
	var key models.APIKey
	err := db.Where("id = ? AND token_hash = ?", keyID, tokenHash).Take(&key).Error
	if errors.Is(err, gorm.ErrRecordNotFound) || (err == nil && (!key.Active || key.UserID != userID)) {
		return key, false, nil
	}
	if err != nil {
		return key, false, fmt.Errorf("find api key %s: %w", keyID, err)
	}
	return key, true, nil
}

// EnabledUserScopes loads an enabled user and the scopes of its role (none
// for an unknown role) in one statement: every request does it, and two
// round trips were most of an authenticated request's own time. ok is
// false when there is no such enabled user.
func EnabledUserScopes(db *gorm.DB, id string) (u models.User, scopes []string, ok bool, err error) {
	var row struct {
		models.User
		RoleScopes models.Strings
	}
	res := db.Raw(`SELECT u.*, r.scopes AS role_scopes FROM users u LEFT JOIN roles r ON r.id = u.role_id
		WHERE u.id = ? AND u.enabled`, id).Scan(&row)
	if res.Error != nil {
		return u, nil, false, fmt.Errorf("find user %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return u, nil, false, nil
	}
	return row.User, row.RoleScopes, true, nil
}
