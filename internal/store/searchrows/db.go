package searchrows

import "gorm.io/gorm"

// DB is what the statements run on. It is an alias, as store.DB is, so
// that search names the database handle (search.Config, Indexer, Drain)
// without importing the driver, and its callers pass theirs unchanged.
type DB = gorm.DB
