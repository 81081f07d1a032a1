package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
)

// Deps are the collaborators of the scheduler.
type Deps struct {
	Config     config.Config
	DB         *gorm.DB
	Redis      *redis.Client
	Queue      *asynq.Client
	Logger     *slog.Logger
	Extractors *extractors.Registry // extractors.Default when nil
}

// LivePriority is the priority of live harvests: below what users ask for
// by default, so manual harvests go first.
const LivePriority = 8

// Scheduler plans live harvests.
type Scheduler struct {
	d       Deps
	starter *jobs.Starter
}

// New builds a scheduler.
func New(d Deps) *Scheduler {
	if d.Extractors == nil {
		d.Extractors = extractors.Default
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{d: d, starter: &jobs.Starter{DB: d.DB, Queue: d.Queue,
		Names: queue.Names{Namespace: d.Config.RedisNamespace}, Registry: d.Extractors}}
}

// Run plans harvests until ctx ends, checking every tenth of the refresh
// time (at most every minute, at least every second).
func Run(ctx context.Context, d Deps) error {
	s := New(d)
	every := min(max(d.Config.HarvestRefreshTime/10, time.Second), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		// Safety net for the search index: a kick lost to a crash (or an
		// engine that was down) is retried here.
		if err := jobs.KickIndex(ctx, s.d.Queue, s.starter.Names); err != nil {
			s.d.Logger.Warn("kick search index", slog.String("error", err.Error()))
		}
		if n, err := s.Plan(ctx, time.Now()); err != nil {
			s.d.Logger.Error("plan live harvests", slog.String("error", err.Error()))
		} else if n > 0 {
			s.d.Logger.Info("live harvests planned", slog.Int("containers", n))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Plan starts a live harvest of every enabled container not walked within
// the refresh time. The request id is derived from the container and the
// refresh slot, so any number of schedulers planning at once create one job
// and one walk task per container and slot.
func (s *Scheduler) Plan(ctx context.Context, now time.Time) (int, error) {
	refresh := s.d.Config.HarvestRefreshTime
	slot := now.UnixNano() / int64(refresh)
	var due []models.Container
	if err := s.d.DB.WithContext(ctx).Where("enabled AND (last_walked IS NULL OR last_walked <= ?)", now.Add(-refresh)).
		Order("id").Find(&due).Error; err != nil {
		return 0, fmt.Errorf("list due containers: %w", err)
	}
	started := 0
	for _, c := range due {
		_, err := s.starter.Start(ctx, jobs.Spec{
			RequestID: ids.Derived("live", c.ID, strconv.FormatInt(slot, 10)), JobType: "live",
			LocationID: c.LocationID, ContainerID: c.ID, Priority: LivePriority,
		})
		if err != nil {
			s.d.Logger.Error("start live harvest", slog.String("container_id", c.ID), slog.String("error", err.Error()))
			continue
		}
		started++
	}
	return started, nil
}
