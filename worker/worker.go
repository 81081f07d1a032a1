package worker

import (
	"context"
	"log/slog"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/queue"
)

// Deps are the collaborators of a worker process.
type Deps struct {
	Config   config.Config
	DB       *gorm.DB
	Redis    *redis.Client
	Queue    *asynq.Client
	RedisOpt asynq.RedisConnOpt
	Logger   *slog.Logger
}

// Run serves tasks until ctx ends.
func Run(ctx context.Context, d Deps) error {
	names := queue.Names{Namespace: d.Config.RedisNamespace}
	srv := asynq.NewServer(d.RedisOpt, asynq.Config{
		Concurrency:    d.Config.WorkerConcurrency,
		Queues:         names.Weights(),
		StrictPriority: d.Config.StrictPriority,
		Logger:         asynqLogger{d.Logger},
	})
	mux := asynq.NewServeMux()
	if err := srv.Start(mux); err != nil {
		return err
	}
	<-ctx.Done()
	srv.Shutdown()
	return nil
}

// asynqLogger routes asynq's own logging into slog.
type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug("asynq", slog.Any("msg", args)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info("asynq", slog.Any("msg", args)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn("asynq", slog.Any("msg", args)) }
func (a asynqLogger) Error(args ...any) { a.l.Error("asynq", slog.Any("msg", args)) }
func (a asynqLogger) Fatal(args ...any) { a.l.Error("asynq fatal", slog.Any("msg", args)) }
