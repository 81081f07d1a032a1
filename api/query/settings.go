package query

import (
	"fmt"

	"gorm.io/gorm"
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
