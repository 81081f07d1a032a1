package worker

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/metrics"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/search"
)

// Deps are the collaborators of a worker process.
type Deps struct {
	Config     config.Config
	DB         *store.DB
	Redis      *redis.Client
	Queue      *asynq.Client
	RedisOpt   asynq.RedisConnOpt
	Logger     *slog.Logger
	Extractors *extractors.Registry // extractors.Default when nil
	Search     search.Engine        // nil: nothing is indexed (tests of harvesting alone)
	Metrics    *metrics.Recorder    // nil: nothing is measured
	// Files are the artifact store and the upload store's bucket;
	// DATA_DIR's when nil.
	Files *blobstore.Files
	// Now is the worker's clock for what it records (activity times, job
	// updates, the reaper's leases); time.Now when nil. Durations it
	// measures (how long a download or an extractor took) use the
	// monotonic clock whatever Now is.
	Now func() time.Time
}

// Run serves tasks until ctx ends, then stops gracefully: it takes no new
// task, lets the running ones finish within SHUTDOWN_TIMEOUT and gives
// those that did not back to their queue (asynq re-queues them; handlers
// are idempotent), then cancels what still runs and logs what happened.
func Run(ctx context.Context, d Deps) error {
	h := NewHandler(d)
	cleanWork(d.Config.DataDir, h.Now())
	defer h.Close() // last: after every handler has returned
	if d.Search != nil {
		// Items marked dirty in the outbox (by the api, by harvests when
		// the engine cannot index in their transactions) are indexed by
		// every worker's indexer: any deployment with a worker converges.
		h.indexer = search.NewIndexer(d.DB, d.Search, h.Logger)
		go h.indexer.Run(ctx)
	}
	if d.Config.FacialRecognition {
		// Faces described by any worker get their persons from whichever
		// assigner takes the people lock (package people).
		h.assigner = &people.Assigner{DB: d.DB, Logger: h.Logger, Rule: people.Rule{Threshold: d.Config.PeopleSamePerson,
			MergeBridged: d.Config.PeopleMergeBridged, MergeThreshold: d.Config.PeopleMergeSamePerson},
			Now: h.Now}
		go h.assigner.Run(ctx)
		// Reference pictures people are taught from are described here,
		// by this process's vendor_faces (people_references.go).
		go h.describeReferences(ctx)
	}
	var rp *reaper
	if d.Redis != nil {
		if err := queue.Declare(ctx, d.Redis, h.names); err != nil {
			return err
		}
		// Registered before the first task, so that no live worker looks
		// dead to the others (reaper.go).
		rp = newReaper(d.Redis, h.names, h.Logger)
		rp.now = h.Now
		if err := rp.beat(ctx); err != nil {
			return err
		}
	}
	// Handlers run under base, not under ctx: a stop signal must not cut
	// them short; base ends only once the grace period is over.
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	track := &inflight{}
	srv := asynq.NewServer(d.RedisOpt, asynq.Config{
		Concurrency:     d.Config.WorkerConcurrency,
		Queues:          h.names.Weights(),
		StrictPriority:  d.Config.StrictPriority,
		Logger:          asynqLogger{h.Logger},
		LogLevel:        asynq.WarnLevel,
		ShutdownTimeout: d.Config.ShutdownTimeout,
		BaseContext:     func() context.Context { return base },
		RetryDelayFunc:  retryDelay,
		// asynq waits this long before looking again when every queue is
		// empty; the default second shows up as latency at each stage of a
		// harvest (walk page -> item batches -> next page). An idle worker
		// costs Redis one cheap script call per queue (13) per interval,
		// from one loop whatever the concurrency: measured idle, `all` used
		// about 4.5% of a core and Redis 2% (docs/performance.md).
		TaskCheckInterval: 25 * time.Millisecond,
		IsFailure:         func(err error) bool { return err != nil },
		ErrorHandler:      asynq.ErrorHandlerFunc(h.taskFailed),
	})
	mux := h.Mux()
	mux.Use(h.measure(track))
	// The reaper beats until asynq has finished or given back every task,
	// after the stop signal too.
	reapCtx, stopReaper := context.WithCancel(base)
	reaperDone := make(chan struct{})
	if rp != nil {
		mux.Use(rp.middleware())
		go func() { defer close(reaperDone); rp.run(reapCtx) }()
	} else {
		close(reaperDone)
	}
	defer func() {
		stopReaper()
		<-reaperDone
		if rp != nil {
			rp.unregister(context.WithoutCancel(ctx))
		}
	}()
	if err := srv.Start(mux); err != nil {
		return err
	}
	<-ctx.Done()
	// Counted and marked in one step: a handler that ends in between
	// would be neither running at the stop nor finished after it.
	running := track.stop()
	h.Logger.Info("worker stopping: no new tasks; waiting for the running ones",
		slog.Int("running", running), slog.String("timeout", d.Config.ShutdownTimeout.String()))
	start := time.Now()
	srv.Shutdown()
	cancelBase()
	// What did not finish was given back to its queue; its handlers are
	// cancelled now and get a moment to stop their programs.
	deadline := time.Now().Add(2 * time.Second)
	for track.count() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	finished, left, late := track.report()
	h.Metrics.Requeued(left)
	h.Logger.Info("worker stopped", slog.Int("finished", finished), slog.Int("requeued", left), slog.Int("started_late", late),
		slog.String("took", time.Since(start).Round(time.Millisecond).String()))
	return nil
}

// inflight counts the task handlers running in this process and, once
// the worker stops, those given back to their queue: the ones still
// running, and the ones that ended cancelled (asynq gives a task back when
// the grace period is over and then cancels its handler, which may return
// before Shutdown does).
type inflight struct {
	mu        sync.Mutex
	n         int
	stopping  bool
	cancelled int
	finished  int // handlers that ended, not cancelled, since stop
	late      int // handlers that started after stop
}

func (f *inflight) add(d int) {
	f.mu.Lock()
	f.n += d
	if f.stopping && d > 0 {
		f.late += d
	}
	f.mu.Unlock()
}

// done ends a handler; ctx is its task's context.
func (f *inflight) done(ctx context.Context) {
	f.mu.Lock()
	f.n--
	if f.stopping && ctx.Err() != nil {
		f.cancelled++
	} else if f.stopping {
		f.finished++
	}
	f.mu.Unlock()
}

// stop marks the worker stopping and returns how many handlers run at
// that moment, under one lock: every one of them is then counted finished
// or given back by report.
func (f *inflight) stop() (running int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopping = true
	return f.n
}

// report is how many handlers finished their task since stop, how many
// did not (given back), and how many of them started after stop (a task
// asynq handed over just before it): finished + givenBack is the running
// count at the stop plus late.
func (f *inflight) report() (finished, givenBack, late int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finished, f.n + f.cancelled, f.late
}

func (f *inflight) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// measure is the middleware every task passes through: it counts running
// handlers (for the shutdown report) and records each run's type, duration
// and outcome.
func (h *Handler) measure(track *inflight) asynq.MiddlewareFunc {
	return func(next asynq.Handler) asynq.Handler {
		return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
			track.add(1)
			defer track.done(ctx)
			start := time.Now()
			err := next.ProcessTask(ctx, t)
			h.Metrics.Task(t.Type(), time.Since(start), err != nil)
			return err
		})
	}
}

// taskFailed is asynq's error handler: it counts the failures asynq will
// retry (transient errors with retries left), and logs the others, which
// asynq archives.
func (h *Handler) taskFailed(ctx context.Context, t *asynq.Task, err error) {
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	if retried < maxRetry && !errors.Is(err, asynq.SkipRetry) {
		h.Metrics.TaskRetried(t.Type())
		return
	}
	id, _ := asynq.GetTaskID(ctx)
	h.Logger.Warn("task failed for good", slog.String("task_id", id), slog.String("type", t.Type()),
		slog.Int("retried", retried), slog.String("error", err.Error()))
}

// Mux routes task types to handlers.
func (h *Handler) Mux() *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(queue.TypeWalk, h.Walk)
	mux.HandleFunc(queue.TypeItem, h.Item)
	mux.HandleFunc(queue.TypeIndex, h.Index)
	mux.HandleFunc(queue.TypeArtifactSweep, h.SweepArtifacts)
	return mux
}

// asynqLogger routes asynq's own logging into slog.
type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug("asynq", slog.Any("msg", args)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info("asynq", slog.Any("msg", args)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn("asynq", slog.Any("msg", args)) }
func (a asynqLogger) Error(args ...any) { a.l.Error("asynq", slog.Any("msg", args)) }
func (a asynqLogger) Fatal(args ...any) { a.l.Error("asynq fatal", slog.Any("msg", args)) }

// retryDelay backs off transient failures exponentially from one second to
// about a minute, with jitter so a fleet does not retry in step.
func retryDelay(n int, _ error, _ *asynq.Task) time.Duration {
	d := time.Second << min(n, 6)
	return d + time.Duration(rand.Int64N(int64(d/2)+1))
}
