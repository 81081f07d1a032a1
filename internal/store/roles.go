package store

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// Role loads a role: 404 when unknown.
func Role(db *gorm.DB, id string) (models.Role, error) { return Take[models.Role](db, "role", id) }

// Roles lists every role by name.
func Roles(db *gorm.DB) ([]models.Role, error) {
	var rows []models.Role
	if err := db.Order("lower(name)").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list roles: %w", err)
	}
	return rows, nil
}

// RoleExists reports whether a role has this id.
func RoleExists(db *gorm.DB, id string) (bool, error) {
	var n int64
	if err := db.Model(&models.Role{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return false, fmt.Errorf("find role %s: %w", id, err)
	}
	return n > 0, nil
}

// RoleNameTaken is NameTaken for roles.
func RoleNameTaken(name string) func(error) error {
	return func(err error) error { return NameTaken(err, "a role named %q exists", name) }
}

// DeleteUnassignedRole deletes a role in tx unless a user holds it (409
// role_assigned). The role row is locked first, so that a user created
// meanwhile cannot slip in.
func DeleteUnassignedRole(tx *gorm.DB, id string) error {
	if err := tx.Exec(`SELECT 1 FROM roles WHERE id = ? FOR UPDATE`, id).Error; err != nil {
		return fmt.Errorf("lock role %s: %w", id, err)
	}
	var n int64
	if err := tx.Model(&models.User{}).Where("role_id = ?", id).Count(&n).Error; err != nil {
		return fmt.Errorf("count users of role %s: %w", id, err)
	}
	if n > 0 {
		return apperr.Conflict(apperr.CodeRoleAssigned, "the role is assigned to %d user(s)", n)
	}
	if err := tx.Delete(&models.Role{}, "id = ?", id).Error; err != nil {
		return fmt.Errorf("delete role %s: %w", id, err)
	}
	return nil
}

// ChangeRoleScopes locks the role in tx, replaces its scopes by
// change(current ones) and returns the role as saved.
func ChangeRoleScopes(tx *gorm.DB, id string, change func([]string) []string) (models.Role, error) {
	var r models.Role
	if err := tx.Raw(`SELECT * FROM roles WHERE id = ? FOR UPDATE`, id).Scan(&r).Error; err != nil {
		return r, fmt.Errorf("lock role %s: %w", id, err)
	}
	if r.ID == "" {
		return r, apperr.NotFound("role", id)
	}
	r.Scopes = change(r.Scopes)
	if r.Scopes == nil {
		r.Scopes = models.Strings{}
	}
	r.UpdatedAt = time.Now().UTC()
	if err := tx.Model(&models.Role{}).Where("id = ?", id).
		Updates(map[string]any{"scopes": r.Scopes, "updated_at": r.UpdatedAt}).Error; err != nil {
		return r, fmt.Errorf("save scopes of role %s: %w", id, err)
	}
	return r, nil
}

// RoleMember is a user of a role with the names of their groups.
type RoleMember struct {
	User   models.User
	Groups []string // names, alphabetically
}

// RoleMembers lists the users of a role by email, each with their groups.
func RoleMembers(db *gorm.DB, roleID string) ([]RoleMember, error) {
	var users []models.User
	if err := db.Where("role_id = ?", roleID).Order("lower(email)").Find(&users).Error; err != nil {
		return nil, fmt.Errorf("list users of role %s: %w", roleID, err)
	}
	var memberships []struct {
		UserID string
		Name   string
	}
	if err := db.Table("user_groups").Select("user_groups.user_id, groups.name").
		Joins("JOIN groups ON groups.id = user_groups.group_id").
		Where("user_groups.user_id IN (SELECT id FROM users WHERE role_id = ?)", roleID).
		Order("lower(groups.name)").Scan(&memberships).Error; err != nil {
		return nil, fmt.Errorf("list groups of the users of role %s: %w", roleID, err)
	}
	byUser := map[string][]string{}
	for _, m := range memberships {
		byUser[m.UserID] = append(byUser[m.UserID], m.Name)
	}
	out := make([]RoleMember, len(users))
	for i, u := range users {
		out[i] = RoleMember{User: u, Groups: byUser[u.ID]}
	}
	return out, nil
}
