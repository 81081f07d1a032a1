package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

func exists(t *testing.T, admin *sql.DB, name string) bool {
	t.Helper()
	var ok bool
	if err := admin.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func waitGone(t *testing.T, admin *sql.DB, name string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for exists(t, admin, name) {
		if time.Now().After(deadline) {
			t.Fatalf("database %s still there a minute after it was given up", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A test's database is dropped after the test, without the test waiting
// for it; a database a dead test binary left is dropped by the next one.
func TestDatabasesAreDroppedAfterTheirTest(t *testing.T) {
	admin, err := sql.Open("pgx", AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	var name string
	t.Run("user", func(t *testing.T) {
		u, err := url.Parse(URL(t))
		if err != nil {
			t.Fatal(err)
		}
		name = strings.TrimPrefix(u.Path, "/")
		if !exists(t, admin, name) {
			t.Fatalf("database %s not created", name)
		}
	})
	waitGone(t, admin, name)

	// A leftover of a process that is gone (pid 2^22+1 is above Linux's
	// pid_max) is collected; one of a live process is not.
	dead := fmt.Sprintf("mh_t_%d_%s", 1<<22+1, "0123456789abcdef")
	live := databaseName("t")
	for _, n := range []string{dead, live} {
		if _, err := admin.Exec(fmt.Sprintf(`CREATE DATABASE %q`, n)); err != nil {
			t.Fatal(err)
		}
	}
	defer admin.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %q`, live))
	ctx := context.Background()
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	collectLeftovers(ctx, conn)
	conn.Close()
	waitGone(t, admin, dead)
	if !exists(t, admin, live) {
		t.Error("a live binary's database was collected")
	}
}
