package extractors

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// ErrHelpersClosed is returned by Helpers.Acquire after Close (the worker
// is stopping).
var ErrHelpersClosed = errors.New("helper pool is closed")

// Helpers is a pool of long-lived helper programs of one kind, started by
// Runner.Start (exiftool -stay_open, the nsfw sidecar): tools whose start
// costs more than the work on one file keep a few processes running, each
// serving one request at a time. A slot's helper is started on first need
// (or by Warm), forgotten (killed) when its user says a request failed,
// replaced when its process ended, and restarted after RestartAfter
// requests, so that whatever the program keeps growing stays bounded. H is
// what the user keeps of each process (its Proc, a reader of its output,
// its start-up state). The framing of requests and answers is the user's.
type Helpers[H any] struct {
	// RestartAfter replaces a helper after that many successful requests;
	// 0 never. Set before first use.
	RestartAfter int

	start func(ctx context.Context) (H, *Proc, error)
	// ended says whether a helper whose process has exited may be dropped
	// from its slot (nil: always). The nsfw sidecar keeps a helper that
	// died while loading until its start-up error was read, so that the
	// request waiting for it reports that error.
	ended func(H) bool

	slots   chan *Helper[H] // nil entries: not started (or forgotten)
	started atomic.Int64

	mu     sync.Mutex
	closed bool
	live   map[*Helper[H]]bool
	ctx    context.Context // the processes' lifetime: ended by Close
	cancel context.CancelFunc
}

// Helper is one process of a pool, as held by the request using it.
type Helper[H any] struct {
	H      H
	Proc   *Proc
	served int
}

// NewHelpers returns a pool of size slots (at least 1). start starts one
// helper; ctx bounds its life (Close ends it), so start passes it to
// Runner.Start. ended, when not nil, says whether a helper whose process
// has exited may be replaced yet.
func NewHelpers[H any](size int, start func(ctx context.Context) (H, *Proc, error), ended func(H) bool) *Helpers[H] {
	size = max(size, 1)
	ctx, cancel := context.WithCancel(context.Background())
	p := &Helpers[H]{start: start, ended: ended, slots: make(chan *Helper[H], size), live: map[*Helper[H]]bool{},
		ctx: ctx, cancel: cancel}
	for range size {
		p.slots <- nil
	}
	return p
}

// Acquire waits for a free slot (or the end of ctx) and returns its
// helper, started now when the slot has none or its process has ended.
// The caller owns it until Release, which it must call exactly once. A
// start that fails returns the slot and the error.
func (p *Helpers[H]) Acquire(ctx context.Context) (*Helper[H], error) {
	var h *Helper[H]
	select {
	case h = <-p.slots:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if h != nil && isDone(h.Proc) && (p.ended == nil || p.ended(h.H)) {
		p.forget(h)
		h = nil
	}
	if h == nil {
		var err error
		if h, err = p.startOne(); err != nil {
			p.slots <- nil
			return nil, err
		}
	}
	return h, nil
}

// Release returns h's slot. ok false (the request failed, the helper is
// out of step or over a bound) kills the helper, and the slot's next user
// starts another; ok true counts the request served and replaces the
// helper after RestartAfter of them.
func (p *Helpers[H]) Release(h *Helper[H], ok bool) {
	if ok {
		h.served++
		if p.RestartAfter > 0 && h.served >= p.RestartAfter {
			ok = false
		}
	}
	if !ok {
		p.forget(h)
		h = nil
	}
	p.slots <- h
}

// Return gives h's slot back as it is, the helper kept and the request
// not counted: the request did not use it (it gave up waiting for the
// helper to start), or the helper refused the request's input, which
// says nothing about the helper.
func (p *Helpers[H]) Return(h *Helper[H]) { p.slots <- h }

// Warm starts the helper of every empty slot now, so that a slow start
// (a model loading) overlaps other work; a failure is left for the first
// request to meet again. It takes only the slots free at the moment: a
// slot in use has its helper or is starting one, and waiting for it would
// deadlock two Warms of one shared pool (each holding some slots while
// waiting for the other's).
func (p *Helpers[H]) Warm() {
	got := make([]*Helper[H], 0, cap(p.slots))
	for range cap(p.slots) {
		select {
		case h := <-p.slots:
			got = append(got, h)
		default:
		}
	}
	for i, h := range got {
		if h == nil {
			got[i], _ = p.startOne()
		}
	}
	for _, h := range got {
		p.slots <- h
	}
}

func (p *Helpers[H]) startOne() (*Helper[H], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrHelpersClosed
	}
	v, proc, err := p.start(p.ctx)
	if err != nil {
		return nil, err
	}
	p.started.Add(1)
	h := &Helper[H]{H: v, Proc: proc}
	p.live[h] = true
	return h, nil
}

func (p *Helpers[H]) forget(h *Helper[H]) {
	p.mu.Lock()
	delete(p.live, h)
	p.mu.Unlock()
	h.Proc.Close()
}

// Started is how many helpers the pool started, for tests and logs.
func (p *Helpers[H]) Started() int64 { return p.started.Load() }

// Pids are the process ids of the helpers alive, for tests and
// measurements.
func (p *Helpers[H]) Pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	pids := make([]int, 0, len(p.live))
	for h := range p.live {
		pids = append(pids, h.Proc.Pid())
	}
	return pids
}

// Close kills every helper, busy or not, and waits until they are gone;
// Acquire fails with ErrHelpersClosed after it.
func (p *Helpers[H]) Close() error {
	p.mu.Lock()
	p.closed = true
	live := make([]*Helper[H], 0, len(p.live))
	for h := range p.live {
		live = append(live, h)
	}
	p.mu.Unlock()
	p.cancel()
	for _, h := range live {
		h.Proc.Close()
	}
	return nil
}

func isDone(p *Proc) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}
