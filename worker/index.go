package worker

import (
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// markDirty queues items for the search index in the caller's transaction.
func markDirty(tx *gorm.DB, itemIDs ...string) error {
	if len(itemIDs) == 0 {
		return nil
	}
	return tx.Exec(`INSERT INTO search_outbox (item_id) SELECT DISTINCT unnest(?::text[])
		ON CONFLICT (item_id) DO UPDATE SET seq = nextval('search_outbox_seq'), enqueued_at = clock_timestamp()`,
		models.Strings(itemIDs)).Error
}
