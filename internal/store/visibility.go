package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Viewer is the caller as the queries see it: who, whether an
// administrator, and the groups they belong to.
//
// Visibility rule: a caller sees a location (and so its containers and
// items) when the location has no groups or shares a group with the caller,
// and a container when, besides, the container has no groups or shares one.
// Administrators see everything.
type Viewer struct {
	UserID string
	Admin  bool
	Groups []string
}

// VisibleSQL returns a SQL condition restricting rows whose location id is
// in column locCol and container id in ctrCol (ctrCol may be empty for
// location rows) to what v may see.
func (v Viewer) VisibleSQL(locCol, ctrCol string) (string, []any) {
	if v.Admin {
		return "TRUE", nil
	}
	groups := models.Strings(v.Groups)
	if groups == nil {
		groups = models.Strings{}
	}
	cond := "(NOT EXISTS (SELECT 1 FROM location_groups vg WHERE vg.location_id = " + locCol + ")" +
		" OR EXISTS (SELECT 1 FROM location_groups vg WHERE vg.location_id = " + locCol + " AND vg.group_id = ANY(?)))"
	args := []any{groups}
	if ctrCol != "" {
		cond += " AND (NOT EXISTS (SELECT 1 FROM container_groups vc WHERE vc.container_id = " + ctrCol + ")" +
			" OR EXISTS (SELECT 1 FROM container_groups vc WHERE vc.container_id = " + ctrCol + " AND vc.group_id = ANY(?)))"
		args = append(args, groups)
	}
	return cond, args
}

// VisibleItemsSQL restricts rows whose item id is in column itemCol to the
// live items v may see.
func (v Viewer) VisibleItemsSQL(itemCol string) (string, []any) {
	cond, args := v.VisibleSQL("vi.location_id", "vi.container_id")
	return "EXISTS (SELECT 1 FROM items vi WHERE vi.id = " + itemCol + " AND vi.deleted_at IS NULL AND " + cond + ")", args
}

// Sees reports whether v may see the location / container pair (ctrID
// may be empty for a location); an unknown pair is not seen.
func (v Viewer) Sees(db *gorm.DB, locID, ctrID string) (bool, error) {
	if v.Admin {
		return true, nil
	}
	ctrCol := ""
	q := "SELECT count(*) FROM locations l"
	args := []any{}
	if ctrID != "" {
		ctrCol = "ct.id"
		q += " JOIN containers ct ON ct.location_id = l.id AND ct.id = ?"
		args = append(args, ctrID)
	}
	cond, vargs := v.VisibleSQL("l.id", ctrCol)
	q += " WHERE l.id = ? AND " + cond
	args = append(append(args, locID), vargs...)
	var n int64
	if err := db.Raw(q, args...).Scan(&n).Error; err != nil {
		return false, fmt.Errorf("visibility of %s/%s: %w", locID, ctrID, err)
	}
	return n > 0, nil
}

// UserGroupIDs lists a user's group ids.
func UserGroupIDs(db *gorm.DB, userID string) ([]string, error) {
	var groups []string
	if err := db.Model(&models.UserGroup{}).Where("user_id = ?", userID).Order("group_id").Pluck("group_id", &groups).Error; err != nil {
		return nil, fmt.Errorf("groups of user %s: %w", userID, err)
	}
	return groups, nil
}
