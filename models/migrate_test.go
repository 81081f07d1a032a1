package models_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
)

// emptyDB is a database of its own without any migration.
func emptyDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", testdb.Empty(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMigrationsUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := emptyDB(t)

	if err := models.CheckMigrated(ctx, db); !errors.Is(err, models.ErrNotMigrated) {
		t.Fatalf("empty database: CheckMigrated = %v, want ErrNotMigrated", err)
	}
	if err := models.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := models.CheckMigrated(ctx, db); err != nil {
		t.Fatalf("after up: %v", err)
	}
	var roles int
	if err := db.QueryRow(`SELECT count(*) FROM roles WHERE id IN ('root','default-user')`).Scan(&roles); err != nil || roles != 2 {
		t.Fatalf("built-in roles: %d, %v", roles, err)
	}
	var profile string
	if err := db.QueryRow(`SELECT name FROM extractor_profiles WHERE id = 'default'`).Scan(&profile); err != nil {
		t.Fatalf("default profile: %v", err)
	}
	if err := models.MigrateDownAll(ctx, db); err != nil {
		t.Fatal(err)
	}
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM information_schema.tables WHERE table_schema='public' AND table_name <> 'goose_db_version'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("after down: %d tables left, %v", tables, err)
	}
	if err := models.Migrate(ctx, db); err != nil {
		t.Fatalf("up again: %v", err)
	}
}

func TestStringsRoundTrip(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	want := models.Strings{"a", "b,c", `q"uote`, `back\slash`, "", "NULL", "{x}"}
	var got models.Strings
	if err := db.Raw(`SELECT ?::text[]`, want).Row().Scan(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %q want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q want %q", got, want)
		}
	}
}
