package models

import (
	"fmt"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Open connects GORM to Postgres with a bounded pool and no SQL logging
// (queries may carry secrets).
func Open(databaseURL string) (*gorm.DB, error) {
	db, err := gorm.Open(postgres.Open(databaseURL), &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		TranslateError:         true,
		// Postgres keeps microseconds: a timestamp answered right after a
		// write is then the one a later read gives.
		NowFunc: func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
	})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	SizePool(db, DefaultPoolSize)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	return db, nil
}

// DefaultPoolSize is the most connections Open's pool opens; processes set
// theirs from the configuration (config.DBMaxConns) with SizePool.
const DefaultPoolSize = 20

// SizePool bounds db's pool to maxConns connections, half of them kept
// idle.
func SizePool(db *gorm.DB, maxConns int) {
	if sqlDB, err := db.DB(); err == nil {
		sqlDB.SetMaxOpenConns(maxConns)
		sqlDB.SetMaxIdleConns(maxConns / 2)
	}
}
