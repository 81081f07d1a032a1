package worker

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/search"
)

// Deps are the collaborators of a worker process.
type Deps struct {
	Config     config.Config
	DB         *gorm.DB
	Redis      *redis.Client
	Queue      *asynq.Client
	RedisOpt   asynq.RedisConnOpt
	Logger     *slog.Logger
	Extractors *extractors.Registry // extractors.Default when nil
	Search     search.Engine        // nil: nothing is indexed (tests of harvesting alone)
}

// Run serves tasks until ctx ends, then lets running tasks finish (asynq
// re-queues what does not finish in time).
func Run(ctx context.Context, d Deps) error {
	if _, set := os.LookupEnv("GOGC"); !set {
		// A worker's live heap is a few MB and it allocates for every file,
		// so the default GOGC=100 collects every few MB: about a seventh of
		// its CPU on folders of small files. 400 costs a few MB more.
		debug.SetGCPercent(workerGCPercent)
	}
	h := NewHandler(d)
	srv := asynq.NewServer(d.RedisOpt, asynq.Config{
		Concurrency:     d.Config.WorkerConcurrency,
		Queues:          h.names.Weights(),
		StrictPriority:  d.Config.StrictPriority,
		Logger:          asynqLogger{d.Logger},
		LogLevel:        asynq.WarnLevel,
		ShutdownTimeout: 20 * time.Second,
		RetryDelayFunc:  retryDelay,
		// asynq waits this long before looking again when every queue is
		// empty; the default second shows up as latency at each stage of a
		// harvest (walk page -> item batches -> next page). An idle worker
		// costs Redis one cheap script call per interval per goroutine.
		TaskCheckInterval: 25 * time.Millisecond,
		IsFailure:         func(err error) bool { return err != nil },
	})
	if err := srv.Start(h.Mux()); err != nil {
		return err
	}
	<-ctx.Done()
	srv.Shutdown()
	return nil
}

// workerGCPercent is the worker's GOGC unless the environment sets one.
const workerGCPercent = 400

// Mux routes task types to handlers.
func (h *Handler) Mux() *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(queue.TypeWalk, h.Walk)
	mux.HandleFunc(queue.TypeItem, h.Item)
	mux.HandleFunc(queue.TypeIndex, h.Index)
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
