package store

import (
	"database/sql"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/models"
)

// Group loads a group: 404 when unknown.
func Group(db *gorm.DB, id string) (models.Group, error) { return Take[models.Group](db, "group", id) }

// Groups lists every group by name.
func Groups(db *gorm.DB) ([]models.Group, error) {
	var rows []models.Group
	if err := db.Order("lower(name)").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list groups: %w", err)
	}
	return rows, nil
}

// GroupNameTaken is NameTaken for groups.
func GroupNameTaken(name string) func(error) error {
	return func(err error) error { return NameTaken(err, "a group named %q exists", name) }
}

// CreateGroup inserts g in tx. A renamed group keeps its id, so the id
// derived from a new name may be in use: g gets a random id then.
func CreateGroup(tx *gorm.DB, g *models.Group) error {
	var n int64
	if err := tx.Model(&models.Group{}).Where("id = ?", g.ID).Count(&n).Error; err != nil {
		return fmt.Errorf("find group %s: %w", g.ID, err)
	}
	if n > 0 {
		g.ID = ids.New()[:16]
	}
	return GroupNameTaken(g.Name)(tx.Create(g).Error)
}

// AddMember adds a user to a group and reports whether they were not a
// member already.
func AddMember(tx *gorm.DB, userID, groupID string) (bool, error) {
	res := tx.Exec(`INSERT INTO user_groups (user_id, group_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, userID, groupID)
	if res.Error != nil {
		return false, fmt.Errorf("add user %s to group %s: %w", userID, groupID, res.Error)
	}
	return res.RowsAffected > 0, nil
}

// RemoveMember removes a user from a group: 404 when not a member.
func RemoveMember(tx *gorm.DB, userID, groupID string) error {
	res := tx.Delete(&models.UserGroup{}, "user_id = ? AND group_id = ?", userID, groupID)
	if res.Error != nil {
		return fmt.Errorf("remove user %s from group %s: %w", userID, groupID, res.Error)
	}
	if res.RowsAffected == 0 {
		return apperr.NotFound("membership of group", groupID)
	}
	return nil
}

// GroupRef is a group's id and name.
type GroupRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// UserGroups lists a user's groups by name.
func UserGroups(db *gorm.DB, userID string) ([]GroupRef, error) {
	out := []GroupRef{}
	if err := db.Table("groups").Select("groups.id, groups.name").
		Joins("JOIN user_groups ug ON ug.group_id = groups.id").Where("ug.user_id = ?", userID).
		Order("lower(groups.name)").Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("list groups of user %s: %w", userID, err)
	}
	return out, nil
}

// UnknownGroups returns the ids in want that name no group.
func UnknownGroups(db *gorm.DB, want []string) ([]string, error) {
	if len(want) == 0 {
		return nil, nil
	}
	var found []string
	if err := db.Model(&models.Group{}).Where("id = ANY(?)", models.Strings(want)).
		Pluck("id", &found).Error; err != nil {
		return nil, fmt.Errorf("find groups: %w", err)
	}
	have := map[string]bool{}
	for _, g := range found {
		have[g] = true
	}
	var missing []string
	for _, g := range want {
		if !have[g] {
			missing = append(missing, g)
		}
	}
	return missing, nil
}

// DeleteGroup deletes a group in tx: 404 when there is none, 409
// group_in_use when it is the only group of a location or container (they
// would be opened to every user; their groups are changed on purpose, not
// as a side effect). It returns the locations and containers the group
// restricted along with others: they lose it, which narrows who finds
// their items.
func DeleteGroup(tx *gorm.DB, id string) (locationIDs, containerIDs []string, err error) {
	var sole []string
	if err := tx.Raw(`SELECT 'location ' || g.location_id FROM location_groups g WHERE g.group_id = @id
	    AND NOT EXISTS (SELECT 1 FROM location_groups o WHERE o.location_id = g.location_id AND o.group_id <> @id)
	UNION ALL
	SELECT 'container ' || g.container_id FROM container_groups g WHERE g.group_id = @id
	    AND NOT EXISTS (SELECT 1 FROM container_groups o WHERE o.container_id = g.container_id AND o.group_id <> @id)
	ORDER BY 1`, sql.Named("id", id)).Scan(&sole).Error; err != nil {
		return nil, nil, fmt.Errorf("places only group %s restricts: %w", id, err)
	}
	if len(sole) > 0 {
		listed := sole[:min(len(sole), 5)]
		more := ""
		if len(sole) > len(listed) {
			more = fmt.Sprintf(" and %d more", len(sole)-len(listed))
		}
		return nil, nil, apperr.Conflict(apperr.CodeGroupInUse, "the group is the only group of %s%s: deleting it would open them to every user; "+
			"give them other groups (or none) first", strings.Join(listed, ", "), more)
	}
	if err := tx.Model(&models.LocationGroup{}).Where("group_id = ?", id).Pluck("location_id", &locationIDs).Error; err != nil {
		return nil, nil, fmt.Errorf("locations of group %s: %w", id, err)
	}
	if err := tx.Raw(`SELECT container_id FROM container_groups WHERE group_id = ?`, id).Scan(&containerIDs).Error; err != nil {
		return nil, nil, fmt.Errorf("containers of group %s: %w", id, err)
	}
	res := tx.Where("id = ?", id).Delete(&models.Group{})
	if res.Error != nil {
		return nil, nil, fmt.Errorf("delete group %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, nil, apperr.NotFound("group", id)
	}
	return locationIDs, containerIDs, nil
}
