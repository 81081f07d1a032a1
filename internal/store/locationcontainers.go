package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// LocationContainers lists the recorded containers of a location that v
// may see, by name (the web UI's location page; the api's listing asks
// the storage itself).
func LocationContainers(db *gorm.DB, v Viewer, locID string) ([]models.Container, error) {
	cond, args := v.VisibleSQL("containers.location_id", "containers.id")
	var rows []models.Container
	if err := db.Where("location_id = ?", locID).Where(cond, args...).Order("name, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("containers of location %s: %w", locID, err)
	}
	return rows, nil
}

// ContainerCounts maps each of these locations to how many of its recorded
// containers v may see (locations without any are absent).
func ContainerCounts(db *gorm.DB, v Viewer, locIDs []string) (map[string]int64, error) {
	cond, args := v.VisibleSQL("containers.location_id", "containers.id")
	var rows []struct {
		LocationID string
		N          int64
	}
	if err := db.Model(&models.Container{}).Select("location_id, count(*) AS n").
		Where("location_id = ANY(?)", models.Strings(locIDs)).Where(cond, args...).
		Group("location_id").Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("count containers: %w", err)
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.LocationID] = r.N
	}
	return out, nil
}
