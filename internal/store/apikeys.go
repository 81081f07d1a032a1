package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// OwnKeys narrows API keys to those of the viewer (administrators manage
// every key).
func OwnKeys(v Viewer) Scope {
	if v.Admin {
		return nil
	}
	return func(q *gorm.DB) *gorm.DB { return q.Where("user_id = ?", v.UserID) }
}

// APIKey loads a key the viewer may manage: 404 for unknown ids and for
// other users' keys, so that ids don't leak.
func APIKey(db *gorm.DB, v Viewer, id string) (models.APIKey, error) {
	return TakeVisible[models.APIKey](db, "api key", id, OwnKeys(v))
}

// APIKeys lists the keys the viewer may manage, oldest first.
func APIKeys(db *gorm.DB, v Viewer) ([]models.APIKey, error) {
	var rows []models.APIKey
	if err := apply(db.Order("created_at, id"), OwnKeys(v)).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return rows, nil
}
