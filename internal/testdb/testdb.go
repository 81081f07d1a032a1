// Package testdb gives each test its own migrated Postgres database, cloned
// cheaply from a template that is migrated once per set of migrations.
package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/testsvc"
	"github.com/metaharvest/metaharvest/models"
)

// AdminURL is the server tests create databases on (TEST_DATABASE_URL).
func AdminURL() string {
	if v := os.Getenv("TEST_DATABASE_URL"); v != "" {
		return v
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// Reachable returns nil when the Postgres of AdminURL accepts connections,
// and otherwise an error saying how to start it (testsvc), after one short
// connect attempt: URL, New and Empty fail with it at once.
func Reachable() error { return reachable(AdminURL()) }

func reachable(adminURL string) error {
	cfg, err := pgconn.ParseConfig(adminURL)
	if err != nil {
		return fmt.Errorf("TEST_DATABASE_URL: %w", err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		network, addr = "unix", filepath.Join(cfg.Host, ".s.PGSQL."+strconv.Itoa(int(cfg.Port)))
	}
	return testsvc.Reachable("Postgres", network, addr, "TEST_DATABASE_URL")
}

// URL creates an isolated, migrated database, dropped when the test ends,
// and returns its URL (for tests that start other processes).
func URL(t testing.TB) string {
	t.Helper()
	if err := Reachable(); err != nil {
		t.Fatalf("testdb: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := sql.Open("pgx", AdminURL())
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	defer admin.Close()
	tpl, err := template(ctx, admin)
	if err != nil {
		t.Fatalf("testdb: template: %v", err)
	}
	name := databaseName("t")
	if _, err := admin.ExecContext(ctx, fmt.Sprintf(`CREATE DATABASE %q TEMPLATE %q`, name, tpl)); err != nil {
		t.Fatalf("testdb: create %s: %v", name, err)
	}
	t.Cleanup(func() { dropLater(name) })
	// A test's commits need not wait for the disk: they are visible to
	// every session at once all the same, and only a crash of the shared
	// server would lose them (the tests that crash Postgres run their own).
	if _, err := admin.ExecContext(ctx, fmt.Sprintf(`ALTER DATABASE %q SET synchronous_commit = off`, name)); err != nil {
		t.Fatalf("testdb: %s: %v", name, err)
	}
	return withDatabase(AdminURL(), name)
}

// New returns a GORM handle on a fresh isolated database.
func New(t testing.TB) *gorm.DB {
	t.Helper()
	db, err := models.Open(URL(t))
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	t.Cleanup(func() {
		if s, err := db.DB(); err == nil {
			s.Close()
		}
	})
	return db
}

// Empty returns the URL of a fresh database with no schema at all.
func Empty(t testing.TB) string {
	t.Helper()
	if err := Reachable(); err != nil {
		t.Fatalf("testdb: %v", err)
	}
	admin, err := sql.Open("pgx", AdminURL())
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	defer admin.Close()
	name := databaseName("e")
	if _, err := admin.Exec(fmt.Sprintf(`CREATE DATABASE %q`, name)); err != nil {
		t.Fatalf("testdb: create %s: %v", name, err)
	}
	t.Cleanup(func() { dropLater(name) })
	return withDatabase(AdminURL(), name)
}

// template makes sure the migrated template for the current migrations
// exists. Test binaries run in parallel, so creation happens under a
// Postgres advisory lock and under a temporary name renamed when complete.
func template(ctx context.Context, admin *sql.DB) (string, error) {
	name := "mh_tpl_" + models.MigrationsFingerprint()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(727274)`); err != nil {
		return "", err
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(727274)`)

	collectOnce.Do(func() { collectLeftovers(ctx, conn) })
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, building)); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`CREATE DATABASE %q`, building)); err != nil {
		return "", err
	}
	db, err := sql.Open("pgx", withDatabase(AdminURL(), building))
	if err != nil {
		return "", err
	}
	err = models.Migrate(ctx, db)
	db.Close()
	if err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`ALTER DATABASE %q RENAME TO %q`, building, name)); err != nil {
		return "", err
	}
	// Templates of earlier migration sets are of no more use: drop them so
	// they do not pile up on a long-lived test server.
	stale := databaseNames(ctx, conn, `SELECT datname FROM pg_database WHERE datname LIKE 'mh\_tpl\_%' AND datname <> $1`, name)
	for _, n := range stale {
		_, _ = conn.ExecContext(ctx, fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, n))
	}
	return name, nil
}

func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}
