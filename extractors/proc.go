package extractors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Proc is a long-lived program started by Runner.Start: a helper that
// serves many files over its standard input and output (exiftool
// -stay_open), for tools whose start-up costs more than the work on one
// file. It runs in a process group of its own with the memory bound of its
// Cmd, like a program of Run; the caller frames requests and bounds what
// it reads of each answer, and kills the program (Kill) when an answer is
// late or malformed.
type Proc struct {
	// Stdin is the program's standard input and Stdout its standard output,
	// both pipes. Reads of Stdout end (io.EOF) once the program and its
	// group are dead.
	Stdin  io.WriteCloser
	Stdout io.Reader

	name   string
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File
	stdout *os.File
	stderr *tailBuffer
	stop   func() bool // unregisters the ctx watch

	mu     sync.Mutex
	reaped bool  // the leader has been waited for: its pid may be reused
	err    error // how it ended, once reaped
	done   chan struct{}
}

// Start starts c as a long-lived program and returns at once. ctx bounds
// its whole life: when ctx ends, the process group is killed. Stdin and
// Stdout of c must be nil (Start makes the pipes) and c must not be Heavy
// (a helper that waits for requests would hold a slot for ever); its
// MaxMemory applies as in Run, its MaxOutput does not (the caller bounds
// each answer). Stderr is kept as a tail for error messages (Err).
//
// Whatever ends the program (Kill, Close, ctx, its own exit), its whole
// group is killed with it, so that no helper leaks processes.
func (r *Runner) Start(ctx context.Context, c Cmd) (*Proc, error) {
	switch {
	case c.Heavy:
		return nil, fmt.Errorf("start %s: a long-lived program cannot be Heavy", c.Name)
	case c.Stdin != nil || c.Stdout != nil:
		return nil, fmt.Errorf("start %s: Start makes the standard input and output itself", c.Name)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Name, err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("start %s: %w", c.Name, err)
	}
	p := &Proc{Stdin: inW, Stdout: outR, name: c.Name, stdin: inW, stdout: outR,
		stderr: &tailBuffer{max: stderrTail}, done: make(chan struct{})}
	p.cmd = exec.Command(c.Name, c.Args...)
	p.cmd.Dir = c.Dir
	p.cmd.Stdin = inR
	p.cmd.Stdout = outW
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.WaitDelay = pipeGrace
	err = p.cmd.Start()
	// The child has its own copies of these ends: ours would keep the pipes
	// open after it died (no EOF on Stdout, no EPIPE on Stdin).
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start %s: %w", c.Name, err)
	}
	p.pgid = p.cmd.Process.Pid
	if mem := c.MaxMemory; mem >= 0 {
		if mem == 0 {
			mem = DefaultMaxMemory
		}
		lim := unix.Rlimit{Cur: uint64(mem), Max: uint64(mem)}
		_ = unix.Prlimit(p.pgid, unix.RLIMIT_AS, &lim, nil)
	}
	go p.wait()
	p.stop = context.AfterFunc(ctx, p.Kill)
	return p, nil
}

// wait reaps the program: first it waits for the leader to exit without
// reaping it (its pid, and so the group id, stays reserved), kills what it
// left in its group, then reaps it.
func (p *Proc) wait() {
	var info unix.Siginfo
	for {
		if err := unix.Waitid(unix.P_PID, p.pgid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != unix.EINTR {
			break
		}
	}
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	err := p.cmd.Wait()
	p.mu.Lock()
	p.reaped = true
	if err == nil || errors.Is(err, exec.ErrWaitDelay) {
		p.err = fmt.Errorf("%s exited%s", p.name, p.stderr.suffix())
	} else {
		p.err = fmt.Errorf("%s: %w%s", p.name, err, p.stderr.suffix())
	}
	p.mu.Unlock()
	close(p.done)
}

// Kill kills the program and its group (SIGKILL) and returns at once; Done
// says when it is gone. Safe to call at any time, more than once.
func (p *Proc) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	}
}

// Done is closed once the program has exited and been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err says how the program ended, with the end of its stderr; nil while it
// runs.
func (p *Proc) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Pid is the program's process id (and its process group id).
func (p *Proc) Pid() int { return p.pgid }

// Close kills the program, waits until it is reaped and closes the pipes.
// It returns nil: a helper that is closed is killed on purpose.
func (p *Proc) Close() error {
	p.stop()
	p.Kill()
	<-p.done
	p.stdin.Close()
	p.stdout.Close()
	return nil
}
