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

// pool is the sidecar processes of one extractor (extractors.Helpers),
// each serving one request at a time.
type pool struct {
	run   *extractors.Runner
	log   *slog.Logger
	node  string // the node program
	dir   string // holds server.js and node_modules (absolute)
	model string

	startTimeout   time.Duration
	requestTimeout time.Duration
	maxRSS         int64

	helpers *extractors.Helpers[*sidecar]
	seq     atomic.Uint64
	// asked counts the pictures asked about, for tests and logs.
	asked atomic.Int64
	// sent, when set (tests), is called with the process id once a
	// request is written, before its answer is read.
	sent func(pid int)
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
}

var errClosed = errors.New("nsfw sidecar pool is closed")

func newPool(run *extractors.Runner, log *slog.Logger, node, dir, model string, size int) *pool {
	p := &pool{run: run, log: log, node: node, dir: dir, model: model,
		startTimeout: defaultStartTimeout, requestTimeout: defaultRequestTimeout, maxRSS: defaultMaxRSS}
	// A process that died while loading is replaced only once its start
	// line was dealt with, so that its error is reported by the request
	// waiting for it.
	p.helpers = extractors.NewHelpers(size, p.start, readyDone)
	p.helpers.RestartAfter = restartAfter
	return p
}

// warm starts every process of the pool now, so that the model loads
// while the worker does other work; a failure is left for the first
// request to meet again.
func (p *pool) warm() { p.helpers.Warm() }

// Classify asks a process of the pool about the PPM picture at path
// (absolute, written by the worker). An error of the process (it did not
// start, crashed, was late, answered out of step) is Transient: nothing
// in the picture causes it, the process is replaced. A picture the
// sidecar refused is not.
func (p *pool) Classify(ctx context.Context, path string) (Scores, error) {
	h, err := p.helpers.Acquire(ctx)
	switch {
	case errors.Is(err, extractors.ErrHelpersClosed):
		return nil, extractors.Transient(errClosed) // the worker is stopping
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("nsfw sidecar: waiting for a process: %w", err)
	case err != nil:
		return nil, extractors.Transient(fmt.Errorf("nsfw sidecar: %w", err))
	}
	sc := h.H
	select {
	case <-sc.ready:
	case <-ctx.Done():
		// The process goes on loading for the next request.
		p.helpers.Return(h)
		return nil, fmt.Errorf("nsfw sidecar: waiting for the model to load: %w", ctx.Err())
	}
	if sc.readyErr != nil {
		p.helpers.Release(h, false)
		return nil, extractors.Transient(sc.readyErr)
	}
	scores, err := p.ask(ctx, sc, path)
	var refused *errAnswer
	switch {
	case errors.As(err, &refused):
		p.helpers.Return(h)
		return nil, err
	case err != nil:
		p.helpers.Release(h, false)
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, extractors.Transient(err)
	}
	ok := true
	if rss := residentBytes(sc.proc.Pid()); rss > p.maxRSS {
		if p.log != nil {
			p.log.Warn("nsfw sidecar over its memory bound: replaced", slog.Int64("rss_bytes", rss), slog.Int("pid", sc.proc.Pid()))
		}
		ok = false
	}
	p.helpers.Release(h, ok)
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

// start starts a process for the pool (ctx is the pool's lifetime); its
// start line is read in the background.
func (p *pool) start(ctx context.Context) (*sidecar, *extractors.Proc, error) {
	args := []string{"--max-old-space-size=" + strconv.Itoa(heapMB), filepath.Join(p.dir, "server.js"), p.model}
	proc, err := p.run.Start(ctx, extractors.Cmd{Name: p.node, Args: args, Dir: p.dir, MaxMemory: sidecarAddressSpace})
	if err != nil {
		return nil, nil, err
	}
	if n := p.helpers.Started(); n > 0 && p.log != nil {
		p.log.Info("nsfw sidecar started again", slog.Int64("starts", n+1), slog.Int("pid", proc.Pid()))
	}
	sc := &sidecar{proc: proc, out: bufio.NewReaderSize(proc.Stdout, 4096), ready: make(chan struct{})}
	go p.awaitReady(sc)
	return sc, proc, nil
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

// Close kills every process, busy or not; requests after it fail.
func (p *pool) Close() error { return p.helpers.Close() }

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
