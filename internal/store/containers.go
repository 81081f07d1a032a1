package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Container loads a container: 404 when unknown.
func Container(db *gorm.DB, id string) (models.Container, error) {
	return Take[models.Container](db, "container", id)
}

// ContainerGroups maps each of these containers to its sorted group ids.
func ContainerGroups(db *gorm.DB, ctrIDs []string) (map[string][]string, error) {
	var links []models.ContainerGroup
	if err := db.Where("container_id = ANY(?)", models.Strings(ctrIDs)).Order("group_id").Find(&links).Error; err != nil {
		return nil, fmt.Errorf("groups of containers: %w", err)
	}
	out := map[string][]string{}
	for _, g := range links {
		out[g.ContainerID] = append(out[g.ContainerID], g.GroupID)
	}
	return out, nil
}

// UpsertContainers records containers found in storage. Ids are derived
// from location and name, so finding one twice (two pages, two api
// processes, a walk) leaves one row, and an existing row keeps its state.
func UpsertContainers(db *gorm.DB, locID string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	ctrIDs := make(models.Strings, len(names))
	for i, n := range names {
		ctrIDs[i] = models.ContainerID(locID, n)
	}
	if err := db.Exec(`INSERT INTO containers (id, location_id, name)
		SELECT u.id, ?, u.name FROM unnest(?::text[], ?::text[]) AS u(id, name)
		ON CONFLICT DO NOTHING`, locID, ctrIDs, models.Strings(names)).Error; err != nil {
		return fmt.Errorf("record containers of location %s: %w", locID, err)
	}
	return nil
}

// VisibleContainers loads the containers with these ids that v may see.
func VisibleContainers(db *gorm.DB, v Viewer, ctrIDs []string) ([]models.Container, error) {
	cond, args := v.VisibleSQL("containers.location_id", "containers.id")
	var rows []models.Container
	if err := db.Where("id = ANY(?)", models.Strings(ctrIDs)).Where(cond, args...).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("load containers: %w", err)
	}
	return rows, nil
}

// EnabledContainers lists the enabled containers v may see.
func EnabledContainers(db *gorm.DB, v Viewer) ([]models.Container, error) {
	cond, args := v.VisibleSQL("containers.location_id", "containers.id")
	var rows []models.Container
	if err := db.Where("enabled").Where(cond, args...).Order("location_id, name").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list enabled containers: %w", err)
	}
	return rows, nil
}

// ProfileExists reports whether an extractor profile has this id.
func ProfileExists(db *gorm.DB, id string) (bool, error) {
	var n int64
	if err := db.Model(&models.ExtractorProfile{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return false, fmt.Errorf("find profile %s: %w", id, err)
	}
	return n > 0, nil
}

// SetContainer sets whether a container is enabled and its profile, in tx.
func SetContainer(tx *gorm.DB, id string, enabled bool, profileID string) error {
	if err := tx.Exec(`UPDATE containers SET enabled = ?, profile_id = ?, updated_at = now() WHERE id = ?`,
		enabled, profileID, id).Error; err != nil {
		return fmt.Errorf("update container %s: %w", id, err)
	}
	return nil
}

// SetContainerGroups makes the container's groups exactly want, in tx,
// and reports whether anything changed.
func SetContainerGroups(tx *gorm.DB, ctrID string, want []string) (bool, error) {
	del := tx.Where("container_id = ? AND NOT (group_id = ANY(?))", ctrID, models.Strings(want)).
		Delete(&models.ContainerGroup{})
	if del.Error != nil {
		return false, fmt.Errorf("drop groups of container %s: %w", ctrID, del.Error)
	}
	changed := del.RowsAffected > 0
	for _, g := range want {
		res := tx.Exec(`INSERT INTO container_groups (container_id, group_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, ctrID, g)
		if res.Error != nil {
			return false, fmt.Errorf("add group %s to container %s: %w", g, ctrID, res.Error)
		}
		changed = changed || res.RowsAffected > 0
	}
	return changed, nil
}
