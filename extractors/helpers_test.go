package extractors

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// catHelper is a long-lived cat: it answers each line with itself.
type catHelper struct {
	proc *Proc
	out  *bufio.Reader
}

func newCatPool(size int) *Helpers[*catHelper] {
	run := NewRunner(1)
	return NewHelpers(size, func(ctx context.Context) (*catHelper, *Proc, error) {
		p, err := run.Start(ctx, Cmd{Name: "cat"})
		if err != nil {
			return nil, nil, err
		}
		return &catHelper{proc: p, out: bufio.NewReader(p.Stdout)}, p, nil
	}, nil)
}

func ask(t *testing.T, p *Helpers[*catHelper], msg string) (*Helper[*catHelper], string) {
	t.Helper()
	h, err := p.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(h.H.proc.Stdin, msg)
	line, err := h.H.out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return h, line
}

// A helper serves request after request, is replaced after RestartAfter
// of them, when its user says a request failed, and when its process
// ended; Return keeps it without counting.
func TestHelpersLifecycle(t *testing.T) {
	t.Parallel()
	p := newCatPool(1)
	defer p.Close()
	p.RestartAfter = 3
	var pids []int
	for i := range 7 {
		h, line := ask(t, p, fmt.Sprint("req ", i))
		if line != fmt.Sprint("req ", i, "\n") {
			t.Fatalf("answer %q", line)
		}
		pids = append(pids, h.Proc.Pid())
		if i == 6 {
			p.Return(h) // not counted
			continue
		}
		p.Release(h, true)
	}
	if pids[0] != pids[2] || pids[2] == pids[3] || pids[3] != pids[5] || pids[5] == pids[6] || p.Started() != 3 {
		t.Errorf("pids %v, started %d: want a new helper after 3 requests", pids, p.Started())
	}
	h, _ := ask(t, p, "after return")
	if h.Proc.Pid() != pids[6] {
		t.Error("Return did not keep the helper")
	}
	p.Release(h, false) // failed: killed
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pids[6])); err == nil {
		t.Errorf("helper %d alive after a failed request", pids[6])
	}
	h, _ = ask(t, p, "new")
	if h.Proc.Pid() == pids[6] || p.Started() != 4 {
		t.Errorf("not replaced after a failure: started %d", p.Started())
	}
	h.Proc.Kill() // its process ends on its own
	<-h.Proc.Done()
	p.Release(h, true)
	if h2, _ := ask(t, p, "again"); h2.Proc.Pid() == h.Proc.Pid() || p.Started() != 5 {
		t.Errorf("an ended helper was handed out again")
	} else {
		p.Release(h2, true)
	}
}

// Acquire waits for a free slot until its context ends; Warm starts every
// slot; Close kills the helpers, busy or not, and refuses what follows.
// Warms of one pool at once (extractors sharing a pool are made side by
// side) all return, with every slot started once.
func TestHelpersWarmTogether(t *testing.T) {
	t.Parallel()
	p := newCatPool(4)
	defer p.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); p.Warm() }()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("warms of one pool at once did not all return")
	}
	if p.Started() != 4 {
		t.Errorf("started %d helpers for 4 slots", p.Started())
	}
}

func TestHelpersWaitWarmClose(t *testing.T) {
	t.Parallel()
	p := newCatPool(2)
	p.Warm()
	if p.Started() != 2 || len(p.Pids()) != 2 {
		t.Fatalf("warm: started %d, pids %v", p.Started(), p.Pids())
	}
	a, _ := ask(t, p, "a")
	b, _ := ask(t, p, "b")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire with every slot busy: %v", err)
	}
	p.Release(a, true)
	pids := p.Pids()
	p.Close() // b is still busy
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("helper %d alive after Close", pid)
		}
	}
	p.Release(b, false)
	if _, err := p.Acquire(context.Background()); !errors.Is(err, ErrHelpersClosed) {
		t.Errorf("Acquire after Close: %v", err)
	}
}
