package worker

import (
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
)

// markDirty queues items for the search index in the caller's transaction.
func markDirty(tx *gorm.DB, itemIDs ...string) error { return search.MarkDirty(tx, itemIDs...) }
