package vision

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// The sidecar is node running deploy/vision/server.js: starting it costs
// about a second, loading a model one to three more (measured on a loaded
// 2-core machine), one picture 0.1 to 1 s, so a worker keeps a few running
// (the pool) and asks them one picture at a time. A process is started on
// first need (or by Warm), replaced when a request fails (late, crashed,
// out of step, over its memory), and restarted after restartAfter
// pictures.

const (
	// DefaultStartTimeout bounds the start of a process and the load of a
	// model (1 to 4 s measured, on a machine busy with other work).
	DefaultStartTimeout = 3 * time.Minute
	// DefaultRequestTimeout bounds one picture of a loaded model: 0.1 to
	// 1.5 s measured, so only a hung process gets near it.
	DefaultRequestTimeout = time.Minute
	// answerLimit bounds one line of the sidecar: 20 faces of a crop with
	// their descriptors are 110 KB.
	answerLimit = 1 << 20
	// restartAfter restarts a process after that many pictures, so that
	// whatever node keeps growing stays bounded.
	restartAfter = 5000
	// sidecarAddressSpace bounds the address space of node (RLIMIT_AS):
	// V8 reserves some 12 GB of address space for the WebAssembly memory
	// and its guard pages without using it, so this is a bound on
	// runaways only; the real bound is MaxRSS.
	sidecarAddressSpace = 20 << 30
	// DefaultMaxRSS is the resident memory past which a process is
	// replaced after its answer (280 MB measured with nsfwjs and Human).
	DefaultMaxRSS = 2 << 30
	// heapMB bounds V8's heap (--max-old-space-size): the weights pass
	// through it while loading.
	heapMB = 1024
)

// Pool is the sidecar processes of a worker process, each serving one
// request at a time. Its exported fields are for tests and may be changed
// before the first request only.
type Pool struct {
	run *extractors.Runner
	log *slog.Logger
	cfg Config

	StartTimeout   time.Duration
	RequestTimeout time.Duration
	MaxRSS         int64
	// Sent, when set (tests), is called with the process id once a
	// request is written, before its answer is read.
	Sent func(pid int)
	// Asked counts the requests sent, for tests and logs.
	Asked atomic.Int64

	helpers *extractors.Helpers[*sidecar]
	seq     atomic.Uint64

	mu      sync.Mutex
	preload []string // what a new process loads before its ready line
}

// sidecar is one process of the pool.
type sidecar struct {
	proc *extractors.Proc
	out  *bufio.Reader
	// ready is closed once the start line was read (or could not be):
	// readyErr and info are set before.
	ready    chan struct{}
	readyErr error
	info     Ready
	// loaded is what the process has loaded (its owner's only).
	loaded map[string]bool
}

var errClosed = errors.New("vision sidecar pool is closed")

// NewPool returns a pool of its own (tests, benchmarks); extractors share
// one through Open.
func NewPool(run *extractors.Runner, log *slog.Logger, cfg Config) *Pool {
	p := &Pool{run: run, log: log, cfg: cfg, StartTimeout: DefaultStartTimeout, RequestTimeout: DefaultRequestTimeout,
		MaxRSS: DefaultMaxRSS}
	// A process that died while loading is replaced only once its start
	// line was dealt with, so that its error is reported by the request
	// waiting for it.
	p.helpers = extractors.NewHelpers(max(1, cfg.Processes), p.start, readyDone)
	p.helpers.RestartAfter = restartAfter
	return p
}

// Preload adds analyses ("face", "objects", "nsfw:MobileNetV2") that
// processes started from now on load before they are ready.
func (p *Pool) Preload(what ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range what {
		if !slices.Contains(p.preload, w) {
			p.preload = append(p.preload, w)
		}
	}
}

// Warm starts every process of the pool now, so that the models load
// while the worker does other work; a failure is left for the first
// request to meet again.
func (p *Pool) Warm() { p.helpers.Warm() }

// Started is how many processes the pool started.
func (p *Pool) Started() int64 { return p.helpers.Started() }

// Pids are the process ids of the processes alive.
func (p *Pool) Pids() []int { return p.helpers.Pids() }

// Ask asks a process of the pool req (its ID is set here). An error of
// the process (it did not start, crashed, was late, answered out of step)
// is Transient: nothing in the picture causes it, the process is
// replaced. A picture the sidecar refused is a *Refusal, not transient.
func (p *Pool) Ask(ctx context.Context, req Request) (Answer, error) {
	h, err := p.helpers.Acquire(ctx)
	switch {
	case errors.Is(err, extractors.ErrHelpersClosed):
		return Answer{}, extractors.Transient(errClosed) // the worker is stopping
	case err != nil && ctx.Err() != nil:
		return Answer{}, fmt.Errorf("vision sidecar: waiting for a process: %w", err)
	case err != nil:
		return Answer{}, extractors.Transient(fmt.Errorf("vision sidecar: %w", err))
	}
	sc := h.H
	select {
	case <-sc.ready:
	case <-ctx.Done():
		// The process goes on loading for the next request.
		p.helpers.Return(h)
		return Answer{}, fmt.Errorf("vision sidecar: waiting for it to start: %w", ctx.Err())
	}
	if sc.readyErr != nil {
		p.helpers.Release(h, false)
		return Answer{}, extractors.Transient(sc.readyErr)
	}
	a, err := p.ask(ctx, sc, req)
	var refused *Refusal
	switch {
	case errors.As(err, &refused):
		p.helpers.Return(h)
		return Answer{}, err
	case err != nil:
		p.helpers.Release(h, false)
		if ctx.Err() != nil {
			return Answer{}, err
		}
		return Answer{}, extractors.Transient(err)
	}
	ok := true
	if rss := ResidentBytes(sc.proc.Pid()); rss > p.MaxRSS {
		if p.log != nil {
			p.log.Warn("vision sidecar over its memory bound: replaced", slog.Int64("rss_bytes", rss), slog.Int("pid", sc.proc.Pid()))
		}
		ok = false
	}
	p.helpers.Release(h, ok)
	return a, nil
}

func (p *Pool) ask(ctx context.Context, sc *sidecar, req Request) (Answer, error) {
	timeout := p.RequestTimeout
	key := req.loadKey()
	if !sc.loaded[key] {
		timeout += p.StartTimeout // the model loads first
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A late answer is ended by killing the process: the read below then
	// meets the end of its output.
	stop := context.AfterFunc(rctx, sc.proc.Kill)
	defer stop()

	req.ID = strconv.FormatUint(p.seq.Add(1), 10)
	line, err := json.Marshal(req)
	if err != nil {
		return Answer{}, fmt.Errorf("vision sidecar: %w", err)
	}
	p.Asked.Add(1)
	if _, err := sc.proc.Stdin.Write(append(line, '\n')); err != nil {
		return Answer{}, p.failure(ctx, rctx, sc, timeout, fmt.Errorf("vision sidecar: send request: %w", err))
	}
	if p.Sent != nil {
		p.Sent(sc.proc.Pid())
	}
	out, err := ReadLine(sc.out, answerLimit)
	if err != nil {
		return Answer{}, p.failure(ctx, rctx, sc, timeout, err)
	}
	a, err := ParseAnswer(out, req.ID)
	var refused *Refusal
	if err != nil && !errors.As(err, &refused) {
		return Answer{}, p.failure(ctx, rctx, sc, timeout, err)
	}
	if err == nil {
		sc.loaded[key] = true
	}
	return a, err
}

// failure words a failed request after its cause: the caller's context
// (the error wraps ctx.Err()), the request's deadline, or the process (its
// exit and the end of its stderr).
func (p *Pool) failure(ctx, rctx context.Context, sc *sidecar, timeout time.Duration, err error) error {
	sc.proc.Kill()
	<-sc.proc.Done()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("vision sidecar: request abandoned: %w", ctx.Err())
	case rctx.Err() != nil:
		return fmt.Errorf("vision sidecar gave no answer within %s: killed", timeout)
	}
	if perr := sc.proc.Err(); perr != nil && !errors.Is(err, extractors.ErrOutputLimit) {
		return fmt.Errorf("%w (%v)", err, perr)
	}
	return err
}

// start starts a process for the pool (ctx is the pool's lifetime); its
// start line is read in the background.
func (p *Pool) start(ctx context.Context) (*sidecar, *extractors.Proc, error) {
	args := []string{"--max-old-space-size=" + strconv.Itoa(heapMB), filepath.Join(p.cfg.Dir, "server.js")}
	p.mu.Lock()
	if len(p.preload) > 0 {
		args = append(args, "--preload", strings.Join(p.preload, ","))
	}
	p.mu.Unlock()
	proc, err := p.run.Start(ctx, extractors.Cmd{Name: p.cfg.Node, Args: args, Dir: p.cfg.Dir, MaxMemory: sidecarAddressSpace})
	if err != nil {
		return nil, nil, err
	}
	if n := p.helpers.Started(); n > 0 && p.log != nil {
		p.log.Info("vision sidecar started again", slog.Int64("starts", n+1), slog.Int("pid", proc.Pid()))
	}
	sc := &sidecar{proc: proc, out: bufio.NewReaderSize(proc.Stdout, 64<<10), ready: make(chan struct{}), loaded: map[string]bool{}}
	go p.awaitReady(sc)
	return sc, proc, nil
}

func (p *Pool) awaitReady(sc *sidecar) {
	defer close(sc.ready)
	late := time.AfterFunc(p.StartTimeout, sc.proc.Kill)
	defer late.Stop()
	line, err := ReadLine(sc.out, answerLimit)
	if err == nil {
		sc.info, err = ParseReady(line)
	}
	if err != nil {
		sc.proc.Kill()
		<-sc.proc.Done()
		if perr := sc.proc.Err(); perr != nil {
			err = fmt.Errorf("%w (%v)", err, perr)
		}
		sc.readyErr = fmt.Errorf("vision sidecar did not start (within %s): %w", p.StartTimeout, err)
		return
	}
	for _, l := range sc.info.Loaded {
		sc.loaded[l] = true
	}
}

// Close kills every process, busy or not; requests after it fail.
func (p *Pool) Close() error { return p.helpers.Close() }

// readyDone says whether sc's start line has been dealt with.
func readyDone(sc *sidecar) bool {
	select {
	case <-sc.ready:
		return true
	default:
		return false
	}
}

// ResidentBytes is the resident memory of process pid (VmRSS), or 0 when
// it cannot be read.
func ResidentBytes(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 16<<10))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 2 && fields[1] == "kB" {
				kb, err := strconv.ParseInt(fields[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// Shared pools: the extractors of a worker process that run the sidecar
// with the same settings use one pool, so that a process loads nsfwjs and
// Human once for all of them.
var (
	sharedMu sync.Mutex
	shared   = map[Config]*sharedPool{}
)

type sharedPool struct {
	pool *Pool
	refs int
}

// Client is an extractor's hold on a pool: Open's shared one, or one of
// its own (Own). Close lets go of it; the last Close of a shared pool
// stops its processes.
type Client struct {
	*Pool
	once    sync.Once
	release func() error
}

// Open returns the worker process's pool for cfg, made on first call, and
// has new processes preload what (see Preload).
func Open(run *extractors.Runner, log *slog.Logger, cfg Config, what ...string) *Client {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	sp := shared[cfg]
	if sp == nil {
		sp = &sharedPool{pool: NewPool(run, log, cfg)}
		shared[cfg] = sp
	}
	sp.refs++
	sp.pool.Preload(what...)
	return &Client{Pool: sp.pool, release: func() error {
		sharedMu.Lock()
		defer sharedMu.Unlock()
		sp.refs--
		if sp.refs > 0 {
			return nil
		}
		delete(shared, cfg)
		return sp.pool.Close()
	}}
}

// Own returns a client of a pool of its own (tests).
func Own(run *extractors.Runner, log *slog.Logger, cfg Config, what ...string) *Client {
	p := NewPool(run, log, cfg)
	p.Preload(what...)
	return &Client{Pool: p, release: p.Close}
}

// Close lets go of the pool (once).
func (c *Client) Close() error {
	var err error
	c.once.Do(func() { err = c.release() })
	return err
}
