package nsfw

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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// The sidecar is node running deploy/nsfw/server.js: starting it and
// loading the model costs a second or more (1 to 3 s measured on this
// loaded build machine), classifying one picture 0.1 to 0.3 s, so a worker
// keeps one or two of them running (the pool) and asks them one picture at
// a time. A process is started when the extractor is made, replaced when a
// request fails (late, crashed, out of step, over its memory), and
// restarted after restartAfter pictures.

const (
	// defaultStartTimeout bounds the model load of a new process (1 to 3 s
	// measured, on a machine busy with other work).
	defaultStartTimeout = 3 * time.Minute
	// defaultRequestTimeout bounds one picture: 0.1 to 0.5 s measured,
	// so only a hung process gets near it.
	defaultRequestTimeout = time.Minute
	// answerLimit bounds one line of the sidecar (an answer is ~150 bytes).
	answerLimit = 64 << 10
	// restartAfter restarts a process after that many pictures, so that
	// whatever node keeps growing stays bounded.
	restartAfter = 5000
	// sidecarAddressSpace bounds the address space of node (RLIMIT_AS):
	// V8 reserves some 12 GB of address space for the WebAssembly memory
	// and its guard pages without using it, so this is a bound on
	// runaways only; the real bound is maxRSS.
	sidecarAddressSpace = 20 << 30
	// defaultMaxRSS is the resident memory past which a process is
	// replaced after its answer (180 MB measured with MobileNetV2, 540 MB
	// with InceptionV3).
	defaultMaxRSS = 1536 << 20
	// heapMB bounds V8's heap (--max-old-space-size): the model's
	// weights pass through it as text while loading (22 MB for
	// InceptionV3).
	heapMB = 1024
)

// pool is the sidecar processes of one extractor, each serving one
// request at a time.
type pool struct {
	run   *extractors.Runner
	log   *slog.Logger
	node  string // the node program
	dir   string // holds server.js and node_modules (absolute)
	model string

	startTimeout   time.Duration
	requestTimeout time.Duration
	maxRSS         int64

	slots chan *sidecar // nil: not started (or forgotten)
	seq   atomic.Uint64
	// started counts the processes started, asked the pictures asked
	// about, for tests and logs.
	started atomic.Int64
	asked   atomic.Int64
	// sent, when set (tests), is called with the process id once a
	// request is written, before its answer is read.
	sent func(pid int)

	mu     sync.Mutex
	closed bool
	live   map[*sidecar]bool
	ctx    context.Context // the processes' lifetime: ended by Close
	cancel context.CancelFunc
}

// sidecar is one process of the pool.
type sidecar struct {
	proc *extractors.Proc
	out  *bufio.Reader
	// ready is closed once the start line was read (or could not be):
	// readyErr and info are set before.
	ready    chan struct{}
	readyErr error
	info     readyLine
	served   int
}

var errClosed = errors.New("nsfw sidecar pool is closed")

func newPool(run *extractors.Runner, log *slog.Logger, node, dir, model string, size int) *pool {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pool{run: run, log: log, node: node, dir: dir, model: model,
		startTimeout: defaultStartTimeout, requestTimeout: defaultRequestTimeout, maxRSS: defaultMaxRSS,
		slots: make(chan *sidecar, size), live: map[*sidecar]bool{}, ctx: ctx, cancel: cancel}
	for range size {
		p.slots <- nil
	}
	return p
}

// warm starts every process of the pool now, so that the model loads
// while the worker does other work; a failure is left for the first
// request to meet again.
func (p *pool) warm() {
	var got []*sidecar
	for range cap(p.slots) {
		got = append(got, <-p.slots)
	}
	for i, sc := range got {
		if sc == nil {
			got[i], _ = p.start()
		}
	}
	for _, sc := range got {
		p.slots <- sc
	}
}

// Classify asks a process of the pool about the PPM picture at path
// (absolute, written by the worker). An error of the process (it did not
// start, crashed, was late, answered out of step) is Transient: nothing
// in the picture causes it, the process is replaced. A picture the
// sidecar refused is not.
func (p *pool) Classify(ctx context.Context, path string) (Scores, error) {
	var sc *sidecar
	select {
	case sc = <-p.slots:
	case <-ctx.Done():
		return nil, fmt.Errorf("nsfw sidecar: waiting for a process: %w", ctx.Err())
	}
	defer func() { p.slots <- sc }()
	if sc != nil && isDone(sc.proc) && readyDone(sc) {
		p.forget(sc)
		sc = nil
	}
	if sc == nil {
		var err error
		if sc, err = p.start(); err != nil {
			return nil, err
		}
	}
	select {
	case <-sc.ready:
	case <-ctx.Done():
		// The process goes on loading for the next request.
		return nil, fmt.Errorf("nsfw sidecar: waiting for the model to load: %w", ctx.Err())
	}
	if sc.readyErr != nil {
		err := sc.readyErr
		p.forget(sc)
		sc = nil
		return nil, extractors.Transient(err)
	}
	scores, err := p.ask(ctx, sc, path)
	var refused *errAnswer
	switch {
	case errors.As(err, &refused):
		return nil, err
	case err != nil:
		p.forget(sc)
		sc = nil
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, extractors.Transient(err)
	}
	sc.served++
	if sc.served >= restartAfter {
		p.forget(sc)
		sc = nil
	} else if rss := residentBytes(sc.proc.Pid()); rss > p.maxRSS {
		if p.log != nil {
			p.log.Warn("nsfw sidecar over its memory bound: replaced", slog.Int64("rss_bytes", rss), slog.Int("pid", sc.proc.Pid()))
		}
		p.forget(sc)
		sc = nil
	}
	return scores, nil
}

func (p *pool) ask(ctx context.Context, sc *sidecar, path string) (Scores, error) {
	rctx, cancel := context.WithTimeout(ctx, p.requestTimeout)
	defer cancel()
	// A late answer is ended by killing the process: the read below then
	// meets the end of its output.
	stop := context.AfterFunc(rctx, sc.proc.Kill)
	defer stop()

	id := strconv.FormatUint(p.seq.Add(1), 10)
	req, err := json.Marshal(request{ID: id, Path: path})
	if err != nil {
		return nil, fmt.Errorf("nsfw sidecar: %w", err)
	}
	p.asked.Add(1)
	if _, err := sc.proc.Stdin.Write(append(req, '\n')); err != nil {
		return nil, p.failure(ctx, rctx, sc, fmt.Errorf("nsfw sidecar: send request: %w", err))
	}
	if p.sent != nil {
		p.sent(sc.proc.Pid())
	}
	line, err := readLine(sc.out, answerLimit)
	if err != nil {
		return nil, p.failure(ctx, rctx, sc, err)
	}
	scores, err := ParseAnswer(line, id)
	var refused *errAnswer
	if err != nil && !errors.As(err, &refused) {
		return nil, p.failure(ctx, rctx, sc, err)
	}
	return scores, err
}

// failure words a failed request after its cause: the caller's context
// (the error wraps ctx.Err()), the request's deadline, or the process (its
// exit and the end of its stderr).
func (p *pool) failure(ctx, rctx context.Context, sc *sidecar, err error) error {
	sc.proc.Kill()
	<-sc.proc.Done()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("nsfw sidecar: request abandoned: %w", ctx.Err())
	case rctx.Err() != nil:
		return fmt.Errorf("nsfw sidecar gave no answer within %s: killed", p.requestTimeout)
	}
	if perr := sc.proc.Err(); perr != nil && !errors.Is(err, extractors.ErrOutputLimit) {
		return fmt.Errorf("%w (%v)", err, perr)
	}
	return err
}

// start starts a process; its start line is read in the background.
func (p *pool) start() (*sidecar, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, extractors.Transient(errClosed) // the worker is stopping
	}
	args := []string{"--max-old-space-size=" + strconv.Itoa(heapMB), filepath.Join(p.dir, "server.js"), p.model}
	proc, err := p.run.Start(p.ctx, extractors.Cmd{Name: p.node, Args: args, Dir: p.dir, MaxMemory: sidecarAddressSpace})
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("nsfw sidecar: %w", err))
	}
	if n := p.started.Add(1); n > 1 && p.log != nil {
		p.log.Info("nsfw sidecar started again", slog.Int64("starts", n), slog.Int("pid", proc.Pid()))
	}
	sc := &sidecar{proc: proc, out: bufio.NewReaderSize(proc.Stdout, 4096), ready: make(chan struct{})}
	p.live[sc] = true
	go p.awaitReady(sc)
	return sc, nil
}

func (p *pool) awaitReady(sc *sidecar) {
	defer close(sc.ready)
	late := time.AfterFunc(p.startTimeout, sc.proc.Kill)
	defer late.Stop()
	line, err := readLine(sc.out, answerLimit)
	if err == nil {
		sc.info, err = ParseReady(line, p.model)
	}
	if err != nil {
		sc.proc.Kill()
		<-sc.proc.Done()
		if perr := sc.proc.Err(); perr != nil {
			err = fmt.Errorf("%w (%v)", err, perr)
		}
		sc.readyErr = fmt.Errorf("nsfw sidecar did not start (within %s): %w", p.startTimeout, err)
	}
}

func (p *pool) forget(sc *sidecar) {
	p.mu.Lock()
	delete(p.live, sc)
	p.mu.Unlock()
	sc.proc.Close()
}

// Close kills every process, busy or not; requests after it fail.
func (p *pool) Close() error {
	p.mu.Lock()
	p.closed = true
	live := make([]*sidecar, 0, len(p.live))
	for sc := range p.live {
		live = append(live, sc)
	}
	p.mu.Unlock()
	p.cancel()
	for _, sc := range live {
		sc.proc.Close()
	}
	return nil
}

func isDone(p *extractors.Proc) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// readyDone says whether sc's start line has been dealt with: a process
// that died while loading is replaced only then, so that its error is
// reported by the request waiting for it.
func readyDone(sc *sidecar) bool {
	select {
	case <-sc.ready:
		return true
	default:
		return false
	}
}

// residentBytes is the resident memory of process pid (VmRSS), or 0 when
// it cannot be read.
func residentBytes(pid int) int64 {
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
