package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Every request looks its credential up, so that disabling a user or a
// key, or deleting a key, takes effect on the next request.

// KeyCheck is the API key a request presents: its id and the hash of its
// token.
type KeyCheck struct{ ID, TokenHash string }

// EnabledUserScopes loads an enabled user and the scopes of its role (none
// for a role without scopes) in one statement: every request does it, and
// separate look-ups were most of an authenticated request's own time.
// With key, the user also needs that active key of theirs, of that token
// hash. ok is false when there is no such enabled user (or key).
func EnabledUserScopes(db *gorm.DB, id string, key *KeyCheck) (u models.User, scopes []string, ok bool, err error) {
	var row struct {
		models.User
		RoleScopes models.Strings
	}
	query, args := `SELECT u.*, r.scopes AS role_scopes FROM users u LEFT JOIN roles r ON r.id = u.role_id
		WHERE u.id = ? AND u.enabled`, []any{id}
	if key != nil {
		query += ` AND EXISTS (SELECT 1 FROM api_keys k WHERE k.id = ? AND k.token_hash = ? AND k.active AND k.user_id = u.id)`
		args = append(args, key.ID, key.TokenHash)
	}
	res := db.Raw(query, args...).Scan(&row)
	if res.Error != nil {
		return u, nil, false, fmt.Errorf("find user %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return u, nil, false, nil
	}
	return row.User, row.RoleScopes, true, nil
}
