package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// Saved searches belong to their user: each user lists and changes only
// their own; other users' ids answer 404.

func ownedBy(userID string) Scope {
	return func(q *gorm.DB) *gorm.DB { return q.Where("user_id = ?", userID) }
}

// SavedSearch loads one of the user's saved searches.
func SavedSearch(db *gorm.DB, userID, id string) (models.SavedSearch, error) {
	return TakeVisible[models.SavedSearch](db, "saved search", id, ownedBy(userID))
}

// SavedSearches lists the user's saved searches by name.
func SavedSearches(db *gorm.DB, userID string) ([]models.SavedSearch, error) {
	var rows []models.SavedSearch
	if err := ownedBy(userID)(db).Order("lower(name)").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list saved searches: %w", err)
	}
	return rows, nil
}

// SavedSearchNameTaken is NameTaken for saved searches (unique per user).
func SavedSearchNameTaken(name string) func(error) error {
	return func(err error) error { return NameTaken(err, "you have a saved search named %q", name) }
}
