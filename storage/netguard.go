package storage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// An s3 endpoint is a URL chosen by whoever may create locations, and the
// api and workers connect to it from inside the deployment. Cloud metadata
// services answer on link-local addresses with the instance's credentials, so
// those are refused; loopback and private ranges stay allowed because
// self-hosted S3 servers (MinIO, versitygw, Ceph) live there.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),     // IPv4 link-local: AWS, GCP, Azure, OpenStack metadata
	netip.MustParsePrefix("fe80::/10"),          // IPv6 link-local
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS IMDS over IPv6
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud metadata
}

// errBlockedAddress is returned by the guarded dialer.
var errBlockedAddress = errors.New("link-local or cloud metadata address refused")

// blockedAddr reports whether ip is one the s3 kind must never connect to.
// IPv4-mapped IPv6 forms (::ffff:169.254.169.254) are unmapped and zones
// (fe80::1%eth0) dropped first: Prefix.Contains is false for either.
func blockedAddr(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// s3DialTimeout bounds connecting, so an unreachable endpoint fails fast.
const s3DialTimeout = 5 * time.Second

// guardedDialer refuses blocked addresses at connect time, after name
// resolution. Checking only in Check would not be enough: a host name can
// resolve to a public address when the location is saved and to
// 169.254.169.254 later (DNS rebinding), and S3 redirects name new hosts.
var guardedDialer = &net.Dialer{
	Timeout:   s3DialTimeout,
	KeepAlive: 30 * time.Second,
	Control: func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("dial %s: unexpected address: %w", address, err)
		}
		if blockedAddr(ip) {
			return fmt.Errorf("dial %s: %w", address, errBlockedAddress)
		}
		return nil
	},
}

// s3Transport is shared by every s3 location: a Location has no Close, so a
// transport per location would keep its idle connections until they time
// out. It ignores HTTP(S)_PROXY on purpose: through a proxy the dialer's
// address check would see the proxy, not the endpoint.
var s3Transport = sync.OnceValue(func() *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return guardedDialer.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		ExpectContinueTimeout: time.Second,
	}
})
