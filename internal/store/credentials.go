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

// EnabledUser loads an enabled user; ok is false when there is none.
func EnabledUser(db *gorm.DB, id string) (models.User, bool, error) {
	var u models.User
	err := db.Where("id = ?", id).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) || (err == nil && !u.Enabled) {
		return u, false, nil
	}
	if err != nil {
		return u, false, fmt.Errorf("find user %s: %w", id, err)
	}
	return u, true, nil
}

// RoleScopes lists the scopes of a role (none for an unknown role).
func RoleScopes(db *gorm.DB, roleID string) ([]string, error) {
	var role models.Role
	if err := db.Where("id = ?", roleID).Take(&role).Error; err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, fmt.Errorf("find role %s: %w", roleID, err)
	}
	return role.Scopes, nil
}
