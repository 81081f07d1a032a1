// Package testproc builds the metaharvest binary once per test binary and
// runs it as separate processes (api, worker), so tests exercise the real
// deployment shape: several processes sharing Postgres and Redis.
package testproc

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds cmd/metaharvest (without -race: the processes are the
// system under test, not the test) and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root := repoRoot()
		dir, err := os.MkdirTemp("", "metaharvest-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "metaharvest")
		// With the tests' own build tags (make test's nomsgpack) and
		// -trimpath: with others, gin and every package that imports it
		// would be compiled a second time (with or without -trimpath,
		// every package).
		args := []string{"build", "-o", binPath}
		if tags := ownBuildSetting("-tags"); tags != "" {
			args = append(args, "-tags="+tags)
		}
		if ownBuildSetting("-trimpath") == "true" {
			args = append(args, "-trimpath")
		}
		cmd := exec.Command("go", append(args, "./cmd/metaharvest")...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// ownBuildSetting is one of the build settings the running (test) binary
// was built with, "" when it has none.
func ownBuildSetting(key string) string {
	info, _ := debug.ReadBuildInfo()
	return BuildSetting(info, key)
}

// BuildSetting is the value of a build setting (such as "-tags") that info
// records, "" when it records none.
func BuildSetting(info *debug.BuildInfo, key string) string {
	if info == nil {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// Process is a running metaharvest role.
type Process struct {
	Role string
	cmd  *exec.Cmd
	out  *OutputBuffer
	done chan struct{}
}

// repoRoot is the repository's root directory: the nearest directory
// holding go.mod above the working directory, which go test sets to the
// package's. Not this file's compiled-in path: make test builds with
// -trimpath, which leaves the module's import path there.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			panic("no go.mod above " + dir)
		}
	}
}

// VisionSidecar is the setting that points a process at the vision
// sidecar the set-up installed in the repository (deploy/vision). Without
// it, a process started by Start (in the test's directory) finds none:
// objects and vendor_faces are not available and the default profile
// skips them, which keeps the process tests that do not look at them
// from spending seconds of CPU on every picture.
func VisionSidecar() string {
	return "VISION_SIDECAR_DIR=" + filepath.Join(repoRoot(), "deploy", "vision")
}

// Start runs `metaharvest <role>` with env (KEY=value) and stops it (SIGTERM,
// then SIGKILL) when the test ends.
func Start(t testing.TB, role string, env []string) *Process {
	t.Helper()
	cmd := exec.Command(Binary(t), role)
	cmd.Env = append(cleanEnv(), env...)
	out := &OutputBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", role, err)
	}
	p := &Process{Role: role, cmd: cmd, out: out, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("%s output:\n%s", role, tail(out.String(), 4000))
		}
	})
	return p
}

// Kill sends SIGKILL and waits for the process to be gone.
func (p *Process) Kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Freeze stops the process where it is (SIGSTOP) until Thaw: whatever it
// holds in Redis or Postgres stays as it is, for a test to read and then
// kill it holding exactly that. It returns once every thread of the
// process has stopped (or the process has ended): the kernel stops a
// thread running on another core only when it next leaves the kernel, and
// until then it may still send a command. A command it sent before that
// may still wait in the server's input: a test reads what a frozen process
// holds after one round trip of its own.
func (p *Process) Freeze() {
	_ = p.cmd.Process.Signal(syscall.SIGSTOP)
	waitStopped(p.cmd.Process.Pid, p.done)
}

// waitStopped waits until every thread of process pid is stopped (state T
// in /proc), or done is closed, or 10 s have passed.
func waitStopped(pid int, done <-chan struct{}) {
	deadline := time.Now().Add(10 * time.Second)
	for !allThreadsStopped(pid) && time.Now().Before(deadline) {
		select {
		case <-done:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// allThreadsStopped reports whether /proc shows every thread of process
// pid stopped by a signal.
func allThreadsStopped(pid int) bool {
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if len(stats) == 0 {
		return false
	}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			return false // a thread that ended meanwhile: look again
		}
		// pid (comm) state ...: comm may hold spaces or parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != 'T' {
			return false
		}
	}
	return true
}

// Thaw lets a frozen process go on (SIGCONT).
func (p *Process) Thaw() { _ = p.cmd.Process.Signal(syscall.SIGCONT) }

// Stop asks the process to stop and kills it after a grace period. A
// frozen process (a test that failed between Freeze and Thaw) is thawed
// to take the request, rather than waited for in vain.
func (p *Process) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	p.Thaw()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.Kill()
	}
}

// Terminate sends SIGTERM and waits up to timeout for the process to end;
// it reports whether it did.
func (p *Process) Terminate(timeout time.Duration) bool {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// ExitCode is the exit status of an ended process (-1 when killed by a
// signal or still running).
func (p *Process) ExitCode() int {
	if !p.Exited() || p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Output is what the process printed so far.
func (p *Process) Output() string { return p.out.String() }

// FreeAddr returns a free loopback address.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// cleanEnv keeps the basics of the test's environment but none of the
// platform's own variables, so each process sees only what the test sets.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "HOME", "TMPDIR", "LANG":
			out = append(out, kv)
		}
	}
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
