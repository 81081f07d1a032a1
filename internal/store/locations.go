package store

import (
	"fmt"
	"slices"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// Location loads a location: 404 when unknown.
func Location(db *gorm.DB, id string) (models.Location, error) {
	return Take[models.Location](db, "location", id)
}

// Locations lists the locations v may see, by name.
func Locations(db *gorm.DB, v Viewer) ([]models.Location, error) {
	cond, args := v.VisibleSQL("locations.id", "")
	var rows []models.Location
	if err := db.Where(cond, args...).Order("lower(name), id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list locations: %w", err)
	}
	return rows, nil
}

// LocationGroups maps each of these locations to its sorted group ids.
func LocationGroups(db *gorm.DB, locIDs []string) (map[string][]string, error) {
	var rows []models.LocationGroup
	if err := db.Where("location_id = ANY(?)", models.Strings(locIDs)).Order("group_id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("groups of locations: %w", err)
	}
	out := map[string][]string{}
	for _, r := range rows {
		out[r.LocationID] = append(out[r.LocationID], r.GroupID)
	}
	return out, nil
}

// SetLocationGroups makes the location's groups exactly want, in tx, and
// returns the groups added.
func SetLocationGroups(tx *gorm.DB, locID string, want []string) ([]string, error) {
	var have []string
	if err := tx.Model(&models.LocationGroup{}).Where("location_id = ?", locID).Pluck("group_id", &have).Error; err != nil {
		return nil, fmt.Errorf("groups of location %s: %w", locID, err)
	}
	if err := tx.Where("location_id = ? AND NOT (group_id = ANY(?))", locID, models.Strings(want)).
		Delete(&models.LocationGroup{}).Error; err != nil {
		return nil, fmt.Errorf("drop groups of location %s: %w", locID, err)
	}
	var added []string
	for _, g := range want {
		if slices.Contains(have, g) {
			continue
		}
		if err := tx.Create(&models.LocationGroup{LocationID: locID, GroupID: g}).Error; err != nil {
			return nil, fmt.Errorf("add group %s to location %s: %w", g, locID, err)
		}
		added = append(added, g)
	}
	return added, nil
}

// UpdateLocation replaces kind, name and config of a location at version,
// moving it to version+1, in tx: 409 version_conflict when it is at
// another version (changed meanwhile).
func UpdateLocation(tx *gorm.DB, id, kind, name string, config models.JSON, version int) error {
	res := tx.Exec(`UPDATE locations SET kind = ?, name = ?, config = ?, version = version + 1, updated_at = now()
		WHERE id = ? AND version = ?`, kind, name, config, id, version)
	if res.Error != nil {
		return fmt.Errorf("update location %s: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return apperr.Conflict(apperr.CodeVersionConflict, "the location changed meanwhile; reload it and retry")
	}
	return nil
}

// DeleteLocation deletes a location for good in tx: its containers, items,
// results, artifact rows and faces go by foreign-key cascade, and the
// people of those faces are counted again. It returns the
// location's items (for search) and artifact paths (for their files).
func DeleteLocation(tx *gorm.DB, id string) (itemIDs, artifactPaths []string, err error) {
	// Items are reached through their containers (the index they have).
	const ofLocation = "container_id IN (SELECT id FROM containers WHERE location_id = ?)"
	if err := tx.Model(&models.Item{}).Where(ofLocation, id).Pluck("id", &itemIDs).Error; err != nil {
		return nil, nil, fmt.Errorf("items of location %s: %w", id, err)
	}
	if err := tx.Raw(`SELECT a.path FROM artifacts a JOIN items i ON i.id = a.item_id WHERE i.`+ofLocation,
		id).Scan(&artifactPaths).Error; err != nil {
		return nil, nil, fmt.Errorf("artifacts of location %s: %w", id, err)
	}
	// The persons with faces here: their faces go with the items, so
	// their counts are worked out again from the faces left elsewhere, and
	// a person left with none disappears (docs/people.md, "Privacy").
	var personIDs []string
	if err := tx.Raw(`SELECT DISTINCT person_id FROM person_faces
WHERE container_id IN (SELECT id FROM containers WHERE location_id = ?) AND person_id IS NOT NULL`, id).
		Scan(&personIDs).Error; err != nil {
		return nil, nil, fmt.Errorf("people of location %s: %w", id, err)
	}
	if err := tx.Delete(&models.Location{}, "id = ?", id).Error; err != nil {
		return nil, nil, fmt.Errorf("delete location %s: %w", id, err)
	}
	if _, err := RecountPeople(tx, personIDs); err != nil {
		return nil, nil, fmt.Errorf("delete location %s: %w", id, err)
	}
	return itemIDs, artifactPaths, nil
}
