package extractors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunToolStdout(t *testing.T) {
	t.Parallel()
	out, err := runTool(context.Background(), "echo", "hello")
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("RunTool(echo hello) = %q, %v", out, err)
	}
	out, err = (&Cmd{Name: "cat", Stdin: strings.NewReader("piped")}).run(context.Background())
	if err != nil || string(out) != "piped" {
		t.Fatalf("cat with stdin = %q, %v", out, err)
	}
	out, err = (&Cmd{Name: "pwd", Dir: "/"}).run(context.Background())
	if err != nil || string(out) != "/\n" {
		t.Fatalf("pwd in / = %q, %v", out, err)
	}
}

func TestRunToolFailureCarriesStderrTail(t *testing.T) {
	t.Parallel()
	script := `for i in $(seq 1 2000); do echo "noise line $i" >&2; done; echo "boom: bad header" >&2; exit 3`
	_, err := runTool(context.Background(), "sh", "-c", script)
	if err == nil {
		t.Fatal("no error for exit status 3")
	}
	msg := err.Error()
	for _, want := range []string{"run sh", "exit status 3", "boom: bad header", "noise line 2000"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "noise line 1\n") || len(msg) > stderrInError+200 {
		t.Errorf("error message not bounded to the tail: %d bytes", len(msg))
	}
}

func TestRunToolMissingProgram(t *testing.T) {
	t.Parallel()
	if _, err := runTool(context.Background(), "metaharvest-no-such-tool"); err == nil {
		t.Fatal("no error for a missing program")
	}
}

// TestRunToolKillsProcessGroupOnTimeout: a child that started a grandchild and
// both sleep; when ctx ends both must be gone, not only the direct child.
// They sleep for ever: runTool returns only once it has killed them (a
// runTool that waited for them would hang the test until go test's
// timeout, whatever the machine's load; no clock is read).
func TestRunToolKillsProcessGroupOnTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	out, err := runTool(ctx, "sh", "-c", `sleep infinity & echo $!; sleep infinity`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	waitGone(t, grandchildPID(t, out))
}

// TestRunToolKillsLeftoversOnExit: a program that exits but leaves a
// background child behind (holding stdout open) returns and the child is
// killed. The child sleeps for ever, so returning is the proof (see above).
func TestRunToolKillsLeftoversOnExit(t *testing.T) {
	t.Parallel()
	out, err := runTool(context.Background(), "sh", "-c", `sleep infinity & echo $!`)
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	waitGone(t, grandchildPID(t, out))
}

func TestRunToolOutputLimit(t *testing.T) {
	t.Parallel()
	// yes never stops by itself: only the limit ends it.
	out, err := (&Cmd{Name: "yes", MaxOutput: 64 << 10}).run(context.Background())
	if !errors.Is(err, ErrOutputLimit) {
		t.Fatalf("yes: err = %v, want ErrOutputLimit", err)
	}
	if len(out) > 64<<10 {
		t.Errorf("kept %d bytes, limit %d", len(out), 64<<10)
	}
	_, err = (&Cmd{Name: "head", Args: []string{"-c", "5000", "/dev/zero"}, MaxOutput: 4096}).run(context.Background())
	if !errors.Is(err, ErrOutputLimit) {
		t.Fatalf("head: err = %v, want ErrOutputLimit", err)
	}
	out, err = (&Cmd{Name: "head", Args: []string{"-c", "4096", "/dev/zero"}, MaxOutput: 4096}).run(context.Background())
	if err != nil || len(out) != 4096 {
		t.Fatalf("output at the limit: %d bytes, %v", len(out), err)
	}
}

func TestRunToolCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runTool(ctx, "true"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
}

func TestTailBuffer(t *testing.T) {
	t.Parallel()
	b := &tailBuffer{max: 8}
	for _, s := range []string{"abc", "defgh", "ij", "0123456789xyz"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := string(b.buf); got != "56789xyz" {
		t.Errorf("tail = %q", got)
	}
	b = &tailBuffer{max: 8}
	b.Write([]byte("abc"))
	b.Write([]byte("defgh"))
	b.Write([]byte("ij"))
	if got := string(b.buf); got != "cdefghij" {
		t.Errorf("tail = %q", got)
	}
}

func grandchildPID(t *testing.T, out []byte) int {
	t.Helper()
	pid, err := strconv.Atoi(string(bytes.TrimSpace(out)))
	if err != nil || pid <= 1 {
		t.Fatalf("grandchild pid from %q: %v", out, err)
	}
	return pid
}

// waitGone polls until pid has died: no such process, or a zombie waiting for
// a reaper (in a container PID 1 may not reap orphans).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // killed already: this only waits for the kernel
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			// "pid (comm) S ...": the state follows the last ')'.
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func runTool(ctx context.Context, name string, args ...string) ([]byte, error) {
	return NewRunner(1).Run(ctx, Cmd{Name: name, Args: args})
}

func TestRunToolStderrSink(t *testing.T) {
	t.Parallel()
	var sink bytes.Buffer
	out, err := (&Cmd{Name: "sh", Args: []string{"-c", "echo out; echo err1 >&2; echo err2 >&2"}, Stderr: &sink}).run(context.Background())
	if err != nil || string(out) != "out\n" || sink.String() != "err1\nerr2\n" {
		t.Fatalf("stdout %q, stderr sink %q, err %v", out, sink.String(), err)
	}
	// A failing sink is dropped; the program still runs to its end and a
	// failure still carries the stderr tail.
	_, err = (&Cmd{Name: "sh", Args: []string{"-c", "echo first >&2; echo last >&2; exit 2"}, Stderr: failingWriter{}}).run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "last") {
		t.Fatalf("err %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("sink full") }

func TestRunToolEnv(t *testing.T) {
	t.Parallel()
	out, err := (&Cmd{Name: "sh", Args: []string{"-c", `echo "$METAHARVEST_TEST_VAR:$PATH"`},
		Env: []string{"METAHARVEST_TEST_VAR=set"}}).run(context.Background())
	if err != nil || !strings.HasPrefix(string(out), "set:") || strings.TrimSpace(string(out)) == "set:" {
		t.Fatalf("env added to the inherited one: %q, %v", out, err)
	}
}
