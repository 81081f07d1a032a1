package scheduler

import (
	"context"
	"log/slog"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/config"
)

// Deps are the collaborators of the scheduler.
type Deps struct {
	Config config.Config
	DB     *gorm.DB
	Redis  *redis.Client
	Queue  *asynq.Client
	Logger *slog.Logger
}

// Run plans harvests until ctx ends.
func Run(ctx context.Context, d Deps) error {
	<-ctx.Done()
	return nil
}
