package storage

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"
)

// The dialer guard is what stops a host name that resolves to a metadata
// address after Check (DNS rebinding). It must refuse before connecting:
// Control runs before connect(2), and its refusal (errBlockedAddress) is
// the only error of a dial that never tried to connect; one that tried
// would end in its deadline or the network's answer, as nothing answers
// on these addresses here.
func TestGuardedDialerRefusesBeforeConnecting(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"169.254.169.254:80", "[fe80::1]:80", "[fd00:ec2::254]:80", "100.100.100.200:80", "[::ffff:169.254.169.254]:80"} {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		_, err := guardedDialer.DialContext(ctx, "tcp", addr)
		cancel()
		if !errors.Is(err, errBlockedAddress) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: err = %v, want the blocked-address refusal", addr, err)
		}
	}
}

func TestBlockedAddr(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"169.254.169.254": true, "169.254.0.1": true, "fe80::abcd": true, "fd00:ec2::254": true,
		"100.100.100.200": true, "::ffff:169.254.169.254": true, "fe80::1%eth0": true,
		"127.0.0.1": false, "::1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.0.1": false,
		"fd00:ec2::253": false, "100.100.100.201": false, "8.8.8.8": false,
	} {
		if got := blockedAddr(netip.MustParseAddr(addr)); got != want {
			t.Fatalf("blockedAddr(%s) = %v", addr, got)
		}
	}
}

// checkError builds every message itself; a server's or transport's text,
// which could carry request details, never reaches the user.
func TestCheckErrorForBlockedDial(t *testing.T) {
	t.Parallel()
	err := checkError(context.Background(), errors.Join(errors.New("Get http://x"), errBlockedAddress))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "endpoint" {
		t.Fatalf("err = %v", err)
	}
}
