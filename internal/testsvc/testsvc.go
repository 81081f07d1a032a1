package testsvc

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// HowToStart is the advice every message ends with.
const HowToStart = "run `make services` and paste the line it prints"

// DialTimeout bounds the connect attempt: a service on this machine, or
// one next to it, answers in milliseconds; one that does not answer within
// this is as good as absent for a test.
const DialTimeout = 2 * time.Second

// checked caches the answer per network and address, so that a test
// binary whose service is absent fails each of its tests at once, and one
// whose service is there dials it once.
var checked sync.Map // network + " " + address -> error (nil: reachable)

// Reachable returns nil when something accepts connections at address
// (network "tcp" or "unix"), and otherwise an error saying that service
// (its name, "Postgres") is not reachable there and how to start it, or
// which setting (an environment variable, "TEST_DATABASE_URL") points the
// tests elsewhere.
func Reachable(service, network, address, setting string) error {
	key := network + " " + address
	if err, ok := checked.Load(key); ok {
		return asError(err)
	}
	err := dial(service, network, address, setting)
	checked.Store(key, err)
	return err
}

func dial(service, network, address, setting string) error {
	c, err := net.DialTimeout(network, address, DialTimeout)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			err = op.Err // without the address, said already
		}
		return fmt.Errorf("%s is not reachable at %s (%v): %s, or set %s to where one runs", service, address, err, HowToStart, setting)
	}
	c.Close()
	return nil
}

func asError(v any) error {
	if v == nil {
		return nil
	}
	return v.(error)
}

// Missing is the error for a program a test needs that is not installed:
// what it is for, and how to install it.
func Missing(program, usedFor string) error {
	return fmt.Errorf("%s is not installed (%s): %s", program, usedFor, HowToStart)
}

// ClosedAddr is a loopback address where nothing listens (a port free
// now), for the tests of what the helpers say of a service not there.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	port, err := testproc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}
