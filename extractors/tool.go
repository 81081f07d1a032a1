package extractors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// DefaultMaxOutput bounds what RunTool keeps of a program's stdout.
	DefaultMaxOutput = 16 << 20
	// stderrTail is how much of the end of stderr is kept; chatty tools (ffmpeg)
	// may write without limit there, and only the end explains a failure.
	stderrTail = 64 << 10
	// stderrInError is how much of that tail goes into an error message.
	stderrInError = 1 << 10
	// pipeGrace bounds the wait for stdout/stderr to close once the process
	// group is dead: a descendant that left the group (setsid) could hold them.
	pipeGrace = 2 * time.Second
)

// Cmd is an external program run by an extractor through a Runner. Its zero
// MaxOutput means DefaultMaxOutput.
type Cmd struct {
	// Name of the program, looked up on PATH, and its arguments.
	Name string
	Args []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env holds variables ("NAME=value") added to the worker's environment
	// for this program only (tesseract is told OMP_THREAD_LIMIT=1, so that
	// its OpenMP threads stay within the one CPU its Heavy slot stands for).
	Env []string
	// Stdin is the program's standard input; nil means /dev/null.
	Stdin io.Reader
	// Stdout, when set, receives the program's output as it comes (frames
	// piped out of ffmpeg) instead of Run returning it; MaxOutput still
	// bounds it. A Write error stops the program.
	Stdout io.Writer
	// Stderr, when set, also receives the program's standard error as it
	// comes (ffmpeg reports what its filters measured there), without
	// bound: the writer keeps what it needs. The end is kept for error
	// messages either way. A Write error ends the copy to Stderr, not the
	// program.
	Stderr io.Writer
	// MaxOutput bounds stdout in bytes; a program writing more is killed and Run
	// fails with ErrOutputLimit.
	MaxOutput int
	// Heavy marks a program that keeps a CPU busy (a decode, OCR): the
	// Runner starts at most its number of slots of them at once.
	Heavy bool
	// MaxMemory bounds the program's address space in bytes (RLIMIT_AS);
	// zero means DefaultMaxMemory, negative means no bound.
	MaxMemory int64
}

// DefaultMaxMemory bounds the address space of a program started by a
// Runner: a pixel flood or a decompression bomb fails its allocation
// instead of pushing the worker's machine into swap.
const DefaultMaxMemory = 4 << 30

// Runner starts the external programs of extractors: one per process, shared
// by every extractor (Env.Runner). It caps how many Heavy programs run at
// once, so that a worker running many tasks of many files does not start
// tens of ffmpeg processes on a few cores.
type Runner struct {
	heavy chan struct{}
}

// NewRunner returns a Runner allowing heavySlots Heavy programs at once;
// heavySlots <= 0 means the number of CPUs.
func NewRunner(heavySlots int) *Runner {
	if heavySlots <= 0 {
		heavySlots = runtime.NumCPU()
	}
	return &Runner{heavy: make(chan struct{}, heavySlots)}
}

// Slots is the number of Heavy programs that may run at once.
func (r *Runner) Slots() int { return cap(r.heavy) }

// Run runs c and returns its stdout (nil when c.Stdout is set). A Heavy
// program first waits for a slot (or for ctx). See Cmd for the limits.
//
// The program runs in a process group of its own. When ctx is done, or
// stdout grows past MaxOutput, the whole group is killed (SIGKILL),
// grandchildren included; when the program exits, whatever it left running
// in its group is killed too, so no extractor leaks processes. Stdout is
// returned even with an error (what was read until then). An error for a
// failed run carries the end of stderr; it wraps ctx.Err() when ctx ended
// the run and ErrOutputLimit when the output did.
func (r *Runner) Run(ctx context.Context, c Cmd) ([]byte, error) {
	if c.Heavy {
		select {
		case r.heavy <- struct{}{}:
			defer func() { <-r.heavy }()
		case <-ctx.Done():
			return nil, fmt.Errorf("run %s: waiting for a slot: %w", c.Name, ctx.Err())
		}
	}
	return c.run(ctx)
}

func (c *Cmd) run(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("run %s: %w", c.Name, err)
	}
	max := c.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	overflow := make(chan struct{})
	stdout := &limitedBuffer{max: max, overflow: overflow, sink: c.Stdout}
	stderr := &tailBuffer{max: stderrTail}

	cmd := exec.Command(c.Name, c.Args...)
	cmd.Dir = c.Dir
	if len(c.Env) > 0 {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	cmd.Stdin = c.Stdin
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	if c.Stderr != nil {
		cmd.Stderr = &teeWriter{tail: stderr, sink: c.Stderr}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", c.Name, err)
	}
	pgid := cmd.Process.Pid // Setpgid with Pgid 0: the group is named after the leader
	if mem := c.MaxMemory; mem >= 0 {
		if mem == 0 {
			mem = DefaultMaxMemory
		}
		// Set right after the start: what the program maps before this is
		// tiny (the dynamic loader), what a hostile input makes it map comes
		// later.
		lim := unix.Rlimit{Cur: uint64(mem), Max: uint64(mem)}
		_ = unix.Prlimit(pgid, unix.RLIMIT_AS, &lim, nil)
	}

	// Wait for the leader to exit without reaping it: while it is an unreaped
	// zombie its pid, and so the group id, cannot be reused, which makes killing
	// the group afterwards safe. (waitid fails otherwise only with ECHILD, when
	// SIGCHLD is ignored, which a Go program does not do.)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pgid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if err != unix.EINTR {
				return
			}
		}
	}()

	var cause error
	select {
	case <-exited:
	case <-ctx.Done():
		cause = fmt.Errorf("killed: %w", ctx.Err())
	case <-overflow:
		cause = fmt.Errorf("%w: stdout over %d bytes", ErrOutputLimit, max)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH when nothing is left: fine
	<-exited
	waitErr := cmd.Wait()
	if cause == nil && stdout.exceeded() {
		// The program exited (often of the broken pipe) before the select saw
		// the overflow.
		cause = fmt.Errorf("%w: stdout over %d bytes", ErrOutputLimit, max)
	}

	out := stdout.Bytes()
	switch {
	case cause != nil:
		return out, fmt.Errorf("run %s: %w%s", c.Name, cause, stderr.suffix())
	case waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay):
		return out, fmt.Errorf("run %s: %w%s", c.Name, waitErr, stderr.suffix())
	}
	return out, nil
}

// limitedBuffer keeps up to max bytes (or passes them to sink) and signals
// overflow once beyond.
type limitedBuffer struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	sink     io.Writer
	n        int
	max      int
	overflow chan struct{}
	over     bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over {
		return 0, ErrOutputLimit
	}
	if b.n+len(p) > b.max {
		b.over = true
		close(b.overflow)
		return 0, ErrOutputLimit
	}
	b.n += len(p)
	if b.sink != nil {
		return b.sink.Write(p)
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) exceeded() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.over
}

func (b *limitedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if len(p) > b.max {
		p = p[len(p)-b.max:]
	}
	if drop := len(b.buf) + len(p) - b.max; drop > 0 {
		b.buf = append(b.buf[:0], b.buf[drop:]...)
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// teeWriter passes stderr to the caller's sink besides keeping its tail;
// once the sink fails it is left alone, and the program carries on.
type teeWriter struct {
	tail   *tailBuffer
	sink   io.Writer
	failed bool
}

func (w *teeWriter) Write(p []byte) (int, error) {
	if !w.failed {
		if _, err := w.sink.Write(p); err != nil {
			w.failed = true
		}
	}
	return w.tail.Write(p)
}

// suffix is ": <last lines of stderr>" for an error message, or "".
func (b *tailBuffer) suffix() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf
	if len(s) > stderrInError {
		s = s[len(s)-stderrInError:]
		if i := bytes.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:] // start on a line boundary
		}
	}
	t := strings.TrimSpace(strings.ToValidUTF8(string(s), "\uFFFD"))
	if t == "" {
		return ""
	}
	return ": " + t
}
