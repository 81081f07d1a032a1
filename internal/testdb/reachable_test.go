package testdb

import (
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testsvc"
)

// A TEST_DATABASE_URL where no Postgres listens is reported at once, with
// how to start one; the server the tests use is reachable.
func TestReachable(t *testing.T) {
	t.Parallel()
	addr := testsvc.ClosedAddr(t)
	err := reachable("postgres://postgres@" + addr + "/postgres?sslmode=disable")
	if err == nil || !strings.HasPrefix(err.Error(), "Postgres is not reachable at "+addr+" (") ||
		!strings.Contains(err.Error(), "run `make services`") || !strings.Contains(err.Error(), "TEST_DATABASE_URL") {
		t.Errorf("closed port: %v", err)
	}
	err = reachable("host=/nonexistent/socket/dir port=5999 user=postgres")
	if err == nil || !strings.HasPrefix(err.Error(), "Postgres is not reachable at /nonexistent/socket/dir/.s.PGSQL.5999 (") {
		t.Errorf("socket: %v", err)
	}
	if err := Reachable(); err != nil {
		t.Errorf("the tests' own server: %v", err)
	}
}
