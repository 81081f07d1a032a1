package store

import (
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/metaharvest/metaharvest/models"
)

// Settings reads the settings rows of the given keys; absent keys are
// absent from the map.
func Settings(db *gorm.DB, keys []string) (map[string]string, error) {
	var rows []struct{ Key, Value string }
	if err := db.Table("settings").Select("key, value").Where("key IN ?", keys).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.Key] = r.Value
	}
	return out, nil
}

// SetSetting writes one settings row.
func SetSetting(tx *gorm.DB, key, value string) error {
	if err := tx.Exec(`INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value).Error; err != nil {
		return fmt.Errorf("write setting %s: %w", key, err)
	}
	return nil
}

// EnsureSetting returns the value of the settings row key, writing value
// there first when the row does not exist (concurrent callers all read
// the one value that was written first).
func EnsureSetting(db *gorm.DB, key, value string) (string, error) {
	if err := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&models.Setting{Key: key, Value: value}).Error; err != nil {
		return "", fmt.Errorf("store setting %s: %w", key, err)
	}
	var s models.Setting
	if err := db.Where("key = ?", key).Take(&s).Error; err != nil {
		return "", fmt.Errorf("load setting %s: %w", key, err)
	}
	return s.Value, nil
}
