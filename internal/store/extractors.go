package store

import (
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
)

// SwitchExtractor records whether an extractor is enabled, in one
// statement so that two concurrent switches cannot both miss the previous
// state. enabled_at moves when the extractor goes from disabled to enabled
// (new_extractors_only reads it); it stays NULL for an extractor enabled
// by default (defaultOn) and never disabled.
func SwitchExtractor(tx *gorm.DB, name string, on, defaultOn bool) error {
	err := tx.Exec(`INSERT INTO extractor_settings (name, enabled, enabled_at, updated_at)
		VALUES (?, ?, CASE WHEN ? AND NOT ? THEN now() END, now())
		ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, updated_at = now(),
			enabled_at = CASE WHEN excluded.enabled AND NOT extractor_settings.enabled THEN now()
				ELSE extractor_settings.enabled_at END`,
		name, on, on, defaultOn).Error
	if err != nil {
		return fmt.Errorf("switch extractor %s: %w", name, err)
	}
	return nil
}

// Profile loads an extractor profile (locked for update in tx when
// lock): 404 when unknown.
func Profile(db *gorm.DB, id string, lock bool) (models.ExtractorProfile, error) {
	q := db.Where("id = ?", id)
	if lock {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	return TakeWhere[models.ExtractorProfile](q, "extractor profile", id)
}

// Profiles lists the extractor profiles, the built-in one first.
func Profiles(db *gorm.DB) ([]models.ExtractorProfile, error) {
	var rows []models.ExtractorProfile
	if err := db.Order("builtin DESC, lower(name), id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list profiles: %w", err)
	}
	return rows, nil
}

// ProfileNameTaken is NameTaken for extractor profiles.
func ProfileNameTaken(name string) func(error) error {
	return func(err error) error { return NameTaken(err, "an extractor profile named %q exists", name) }
}

// SaveProfile stores a profile's name and extractors in tx and reloads it.
func SaveProfile(tx *gorm.DB, p *models.ExtractorProfile) error {
	err := tx.Model(&models.ExtractorProfile{}).Where("id = ?", p.ID).
		Updates(map[string]any{"name": p.Name, "extractors": p.Extractors, "updated_at": gorm.Expr("now()")}).Error
	if err != nil {
		return ProfileNameTaken(p.Name)(err)
	}
	if err := tx.Where("id = ?", p.ID).Take(p).Error; err != nil {
		return fmt.Errorf("reload profile %s: %w", p.ID, err)
	}
	return nil
}

// DeleteUnusedProfile deletes a profile in tx unless a container uses it
// (409 profile_in_use).
func DeleteUnusedProfile(tx *gorm.DB, id string) error {
	var n int64
	if err := tx.Model(&models.Container{}).Where("profile_id = ?", id).Count(&n).Error; err != nil {
		return fmt.Errorf("containers of profile %s: %w", id, err)
	}
	if n > 0 {
		return apperr.Conflict(apperr.CodeProfileInUse, "the profile is used by %d container(s)", n)
	}
	if err := tx.Delete(&models.ExtractorProfile{}, "id = ?", id).Error; err != nil {
		return fmt.Errorf("delete profile %s: %w", id, err)
	}
	return nil
}
