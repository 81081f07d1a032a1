package testmeili

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/internal/testsvc"
)

// Version is the Meilisearch version the tests run (and production's
// image, getmeili/meilisearch:v1.21.0).
const Version = "1.21.0"

// ErrNoBinary means the Meilisearch binary is not installed.
var ErrNoBinary = testsvc.Missing("meilisearch "+Version, "the search server of the Meilisearch tests; deploy/setup.sh --s3 fetches it into ~/.cache/metaharvest, or set MEILI_BIN")

// startTimeout bounds waiting for a server to answer.
const startTimeout = 60 * time.Second

// Server is a running Meilisearch.
type Server struct {
	// URL is the server's address ("http://127.0.0.1:41234") and Key its
	// master key (which every request must carry).
	URL, Key string
	// Dir holds its database.
	Dir string

	mu   sync.Mutex
	port int
	proc *process
}

type process struct {
	cmd    *exec.Cmd
	out    *testproc.OutputBuffer
	exited chan struct{}
}

// Binary finds the server: MEILI_BIN, then the cache deploy/setup.sh
// fills (METAHARVEST_CACHE, else XDG_CACHE_HOME or ~/.cache, +
// /metaharvest/meilisearch-<Version>/meilisearch), then meilisearch on PATH.
func Binary() (string, error) { return findBinary() }

var findBinary = sync.OnceValues(func() (string, error) {
	var candidates []string
	if p := os.Getenv("MEILI_BIN"); p != "" {
		candidates = append(candidates, p)
	}
	cache := os.Getenv("METAHARVEST_CACHE")
	if cache == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(dir, "metaharvest")
		}
	}
	if cache != "" {
		candidates = append(candidates, filepath.Join(cache, "meilisearch-"+Version, "meilisearch"))
	}
	if p, err := exec.LookPath("meilisearch"); err == nil {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", ErrNoBinary
})

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the server of this test binary, started on first use. It
// outlives the test that started it; RunMain stops it.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "testmeili-")
		if err != nil {
			shared.err = err
			return
		}
		shared.srv = &Server{Dir: dir, Key: testproc.RandomHex(16)}
		shared.err = shared.srv.start()
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv
}

// RunMain runs the tests, then stops the shared server if one was started.
// Use it as os.Exit(testmeili.RunMain(m)) in TestMain.
func RunMain(m *testing.M) int {
	code := m.Run()
	if s := shared.srv; s != nil {
		s.Kill()
		os.RemoveAll(s.Dir)
	}
	return code
}

// Available reports whether tests can have a server here (the binary is
// installed); without it, Shared and Start fail the test.
func Available() bool {
	_, err := Binary()
	return err == nil
}

// Launch runs a server outside a test (the benchmarks), with its database
// in dir; Kill stops it.
func Launch(dir string) (*Server, error) {
	s := &Server{Dir: dir, Key: testproc.RandomHex(16)}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// Start runs a server owned by t, stopped in t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{Dir: t.TempDir(), Key: testproc.RandomHex(16)}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Kill)
	return s
}

// Kill stops the server with SIGKILL (as a crash would) and waits for it to
// exit. Its database stays in Dir.
func (s *Server) Kill() {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Restart starts a killed server again on the same port and database.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

// Pid is the running server's process id (0 when it is not running): the
// bench reads its CPU time.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.cmd.Process == nil {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// Output is what the running (or last) server printed, for failures.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return ""
	}
	return s.proc.out.String()
}

// start runs the binary on s.port (a free one the first time). Between
// closing the probe listener and the server binding the port another
// process may take it: on a first start another port is then tried.
func (s *Server) start() error {
	bin, err := Binary()
	if err != nil {
		return err
	}
	var lastErr error
	for range 3 {
		if s.URL == "" {
			if s.port, err = testproc.FreePort(); err != nil {
				return err
			}
		}
		p, err := s.run(bin)
		if err == nil {
			s.mu.Lock()
			s.proc = p
			s.mu.Unlock()
			s.URL = fmt.Sprintf("http://127.0.0.1:%d", s.port)
			return nil
		}
		lastErr = err
		if s.URL != "" {
			break // a restart keeps its port
		}
	}
	return lastErr
}

func (s *Server) run(bin string) (*process, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", s.port)
	cmd := exec.Command(bin,
		"--http-addr", addr,
		"--db-path", filepath.Join(s.Dir, "data.ms"),
		"--dump-dir", filepath.Join(s.Dir, "dumps"),
		"--snapshot-dir", filepath.Join(s.Dir, "snapshots"),
		"--env", "production",
		"--no-analytics",
		// Two cores are shared by the whole test suite.
		"--max-indexing-threads", "2",
		"--max-indexing-memory", "512 MiB",
		"--log-level", "WARN",
	)
	cmd.Env = append(serverEnv(), "MEILI_MASTER_KEY="+s.Key)
	cmd.Dir = s.Dir
	out := &testproc.OutputBuffer{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	killWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testmeili: start %s: %w", bin, err)
	}
	p := &process{cmd: cmd, out: out, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	client := &http.Client{Timeout: time.Second}
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := client.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("testmeili: meilisearch exited before answering: %s", strings.TrimSpace(out.String()))
		case <-deadline.C:
			_ = cmd.Process.Kill()
			<-p.exited
			return nil, fmt.Errorf("testmeili: meilisearch did not answer on %s within %s: %s", addr, startTimeout, strings.TrimSpace(out.String()))
		case <-tick.C:
		}
	}
}

// Prefix is an index prefix of the test's own ("t_<name>_<random>_"), so
// that tests sharing a server never see each other's indexes.
func Prefix(t testing.TB) string {
	name := strings.ToLower(t.Name())
	name = regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(name, "_")
	name = strings.Trim(name, "_")
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	return "t_" + name + "_" + testproc.RandomHex(4) + "_"
}

// serverEnv drops the variables Meilisearch reads as its options
// (MEILI_*), so that a developer's shell cannot change the test server.
func serverEnv() []string { return testproc.EnvWithout("MEILI_") }
