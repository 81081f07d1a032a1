package testdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/metaharvest/metaharvest/internal/ids"
)

// A test's database is dropped after the test, but not while the test
// waits: Postgres makes every DROP DATABASE wait for a checkpoint, and
// while other tests write, one takes up to a second and the drops of a
// package queue behind each other (the api package took 136 to 198 s in
// the whole suite against 64 s alone). One goroutine per test binary
// drops them in turn, on one connection. What a binary leaves when it
// exits first (databases are named after its process id), the next test
// binary on this machine drops.

// databaseName is a new database name: mh_<kind>_<pid>_<random>.
func databaseName(kind string) string {
	return fmt.Sprintf("mh_%s_%d_%s", kind, os.Getpid(), ids.New()[:16])
}

var (
	dropOnce  sync.Once
	dropQueue chan string
)

// dropLater queues name to be dropped by this binary's dropper.
func dropLater(name string) {
	dropOnce.Do(func() {
		dropQueue = make(chan string, 4096)
		go dropper()
	})
	select {
	case dropQueue <- name:
	default: // a full queue: the next binary collects it
	}
}

func dropper() {
	var admin *sql.DB
	for name := range dropQueue {
		if admin == nil {
			a, err := sql.Open("pgx", AdminURL())
			if err != nil {
				continue
			}
			a.SetMaxOpenConns(1)
			admin = a
		}
		_, _ = admin.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, name))
	}
}

var collectOnce sync.Once

// collectLeftovers queues the test databases of test binaries that are no
// longer running on this machine and that nobody is connected to.
func collectLeftovers(ctx context.Context, conn *sql.Conn) {
	names := databaseNames(ctx, conn, `SELECT d.datname FROM pg_database d
		WHERE (d.datname LIKE 'mh\_t\_%' OR d.datname LIKE 'mh\_e\_%')
		  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datid = d.oid)`)
	for _, n := range names {
		if pid, ok := creatorPID(n); ok && !running(pid) {
			dropLater(n)
		}
	}
}

// databaseNames is the names a query of pg_database gives (none when it
// fails: collecting is best effort).
func databaseNames(ctx context.Context, conn *sql.Conn, query string, args ...any) []string {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	return names
}

// creatorPID is the process id in a name databaseName made.
func creatorPID(name string) (int, bool) {
	parts := strings.Split(name, "_")
	if len(parts) != 4 {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[2])
	return pid, err == nil && pid > 0
}

// running reports whether a process with this id exists here.
func running(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
