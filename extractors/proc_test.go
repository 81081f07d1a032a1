package extractors

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// A long-lived cat answers line after line until it is closed.
func TestStartServesManyRequests(t *testing.T) {
	t.Parallel()
	p, err := NewRunner(1).Start(context.Background(), Cmd{Name: "cat"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := bufio.NewReader(p.Stdout)
	for i := range 100 {
		fmt.Fprintf(p.Stdin, "request %d\n", i)
		line, err := r.ReadString('\n')
		if err != nil || line != fmt.Sprintf("request %d\n", i) {
			t.Fatalf("answer %d = %q, %v", i, line, err)
		}
	}
	if p.Err() != nil {
		t.Errorf("Err while running = %v", p.Err())
	}
	p.Close()
	if _, err := p.Stdin.Write([]byte("x\n")); err == nil {
		t.Error("write after Close succeeded")
	}
	if p.Err() == nil {
		t.Error("Err after Close is nil")
	}
}

// Kill ends a program that does not answer: the pending read returns, and
// the grandchild it started is killed with it.
func TestStartKillEndsGroup(t *testing.T) {
	t.Parallel()
	p, err := NewRunner(1).Start(context.Background(), Cmd{Name: "sh", Args: []string{"-c", `sleep infinity & echo $!; read x; sleep infinity`}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := bufio.NewReader(p.Stdout)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	grandchild := grandchildPID(t, []byte(line))
	io.WriteString(p.Stdin, "go\n")
	read := make(chan error, 1)
	go func() {
		_, err := r.ReadString('\n')
		read <- err
	}()
	p.Kill()
	select {
	case err := <-read:
		if err != io.EOF {
			t.Errorf("read after Kill: %v, want EOF", err)
		}
	case <-time.After(time.Minute): // the program sleeps for ever: blocked for good
		t.Fatal("read still blocked after Kill")
	}
	<-p.Done()
	waitGone(t, grandchild)
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Err = %v", err)
	}
}

// The context bounds the life of the program.
func TestStartContextEndsProgram(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := NewRunner(1).Start(ctx, Cmd{Name: "sleep", Args: []string{"100"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cancel()
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("program alive after its context ended")
	}
	if _, err := NewRunner(1).Start(ctx, Cmd{Name: "sleep", Args: []string{"100"}}); err == nil {
		t.Error("started with a cancelled context")
	}
}

// A program that exits by itself is reaped, its stderr explains why, and
// writes to it fail instead of blocking.
func TestStartProgramExits(t *testing.T) {
	t.Parallel()
	p, err := NewRunner(1).Start(context.Background(), Cmd{Name: "sh", Args: []string{"-c", `echo "cannot go on" >&2; exit 2`}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	<-p.Done()
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "cannot go on") {
		t.Errorf("Err = %v", err)
	}
	if _, err := io.ReadAll(p.Stdout); err != nil {
		t.Errorf("read after exit: %v", err)
	}
	if _, err := p.Stdin.Write([]byte("more\n")); err == nil {
		t.Error("write to a dead program succeeded")
	}
}

func TestStartAppliesMemoryBound(t *testing.T) {
	t.Parallel()
	p, err := NewRunner(1).Start(context.Background(), Cmd{Name: "cat", MaxMemory: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", p.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(limits), fmt.Sprint(256<<20)) {
		t.Errorf("no address-space bound of 256 MiB in\n%s", limits)
	}
}

func TestStartRefusesMisuse(t *testing.T) {
	t.Parallel()
	r := NewRunner(1)
	for _, c := range []Cmd{{Name: "cat", Heavy: true}, {Name: "cat", Stdin: strings.NewReader("")}, {Name: "cat", Stdout: io.Discard},
		{Name: "metaharvest-no-such-tool"}} {
		if p, err := r.Start(context.Background(), c); err == nil {
			p.Close()
			t.Errorf("Start(%+v) succeeded", c)
		}
	}
}
