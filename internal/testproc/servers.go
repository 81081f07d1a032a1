package testproc

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
)

// The helpers below serve every test server this module starts as a child
// process (the metaharvest roles here, versitygw in testbucket, Meilisearch in
// testmeili), benchmarks included: they take no testing.TB.

// OutputBuffer collects a child process's output for error messages; os/exec
// writes to it from its copying goroutines. Past Max bytes (0: no limit)
// it keeps what it has, which is enough to explain a failure.
type OutputBuffer struct {
	Max int

	mu sync.Mutex
	b  bytes.Buffer
}

func (o *OutputBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Max > 0 && o.b.Len() > o.Max {
		return len(p), nil
	}
	return o.b.Write(p)
}

func (o *OutputBuffer) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// FreePort returns a loopback port that is free now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// RandomHex is n random bytes in hex: names and keys of test servers.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// EnvWithout is this process's environment less the variables whose names
// start with one of prefixes, so that a developer's shell cannot change a
// test server that reads its options from the environment.
func EnvWithout(prefixes ...string) []string {
	var env []string
next:
	for _, kv := range os.Environ() {
		for _, p := range prefixes {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		env = append(env, kv)
	}
	return env
}
