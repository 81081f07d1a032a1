package testsvc

import (
	"net"
	"strings"
	"testing"
)

// A service that is not there is named, with where it was looked for and
// how to start it; the answer is kept, and one that is there is reachable.
func TestReachable(t *testing.T) {
	t.Parallel()
	addr := ClosedAddr(t)
	err := Reachable("Postgres", "tcp", addr, "TEST_DATABASE_URL")
	if err == nil {
		t.Fatalf("nothing listens on %s, and it was reachable", addr)
	}
	for _, want := range []string{"Postgres is not reachable at " + addr + " (connect: connection refused): run `make services` and paste the line it prints, or set TEST_DATABASE_URL to where one runs"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if again := Reachable("Postgres", "tcp", addr, "TEST_DATABASE_URL"); again != err {
		t.Errorf("asked again: %v, want the first answer kept", again)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := Reachable("Redis", "tcp", l.Addr().String(), "TEST_REDIS_URL"); err != nil {
		t.Errorf("a listening port: %v", err)
	}
	if err := Missing("chromium", "the browser tests drive it"); !strings.Contains(err.Error(), "chromium is not installed (the browser tests drive it): run `make services`") {
		t.Errorf("missing: %v", err)
	}
}
