package worker

import "gorm.io/gorm"

// markDirty queues items for the search index in the caller's transaction.
func markDirty(tx *gorm.DB, itemIDs ...string) error {
	for _, id := range itemIDs {
		if err := tx.Exec(`INSERT INTO search_outbox (item_id) VALUES (?)
			ON CONFLICT (item_id) DO UPDATE SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp()`, id).Error; err != nil {
			return err
		}
	}
	return nil
}
