package models

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrNotMigrated reports a database whose schema is older than this binary.
var ErrNotMigrated = errors.New("database schema is not up to date: run `metaharvest migrate` (or set MIGRATE=auto)")

func provider(db *sql.DB) (*goose.Provider, error) {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectPostgres, db, sub)
}

// Migrate applies every pending migration.
func Migrate(ctx context.Context, db *sql.DB) error {
	p, err := provider(db)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// MigrateUpTo applies the pending migrations up to version (used by the
// tests of a migration's upgrade of existing rows).
func MigrateUpTo(ctx context.Context, db *sql.DB, version int64) error {
	p, err := provider(db)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// MigrateDownAll reverts every migration (used by the migration test).
func MigrateDownAll(ctx context.Context, db *sql.DB) error {
	p, err := provider(db)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		return fmt.Errorf("revert migrations: %w", err)
	}
	return nil
}

// CheckMigrated returns ErrNotMigrated when migrations are pending.
func CheckMigrated(ctx context.Context, db *sql.DB) error {
	p, err := provider(db)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("check migrations: %w", err)
	}
	if pending {
		return ErrNotMigrated
	}
	return nil
}

// MigrationsFingerprint identifies the set of migrations, so test templates
// built from an older set are not reused.
func MigrationsFingerprint() string {
	entries, _ := fs.ReadDir(migrationFiles, "migrations")
	h := newFNV()
	for _, e := range entries {
		b, _ := migrationFiles.ReadFile("migrations/" + e.Name())
		h.Write([]byte(e.Name()))
		h.Write(b)
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
