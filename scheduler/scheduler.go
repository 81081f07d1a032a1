package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/store"
)

// Deps are the collaborators of the scheduler.
type Deps struct {
	Config     config.Config
	DB         *store.DB
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

// Run plans harvests and repairs stalled ones until ctx ends, checking
// every tenth of the refresh time or third of the stall timeout, whichever
// is shorter (at most every minute, at least every second). A round under
// way when ctx ends is finished (within SHUTDOWN_TIMEOUT) rather than cut
// between a job's row and its task.
func Run(ctx context.Context, d Deps) error {
	s := New(d)
	every := min(max(min(d.Config.HarvestRefreshTime/10, d.Config.JobStallTimeout/3), time.Second), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		s.round(ctx)
		select {
		case <-ctx.Done():
			s.d.Logger.Info("scheduler stopped")
			return nil
		case <-t.C:
		}
	}
}

// round runs one planning round under a context that outlives a stop
// signal by at most the shutdown timeout.
func (s *Scheduler) round(stop context.Context) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(stop))
	defer cancel()
	grace := max(s.d.Config.ShutdownTimeout, time.Second)
	defer context.AfterFunc(stop, func() { time.AfterFunc(grace, cancel) })()
	// Safety net for the search index: a kick lost to a crash (or an
	// engine that was down) is retried here.
	if err := jobs.KickIndex(ctx, s.d.Queue, s.starter.Names); err != nil {
		s.d.Logger.Warn("kick search index", slog.String("error", err.Error()))
	}
	// The artifact store's sweep for orphans, once a day.
	if err := jobs.StartSweep(ctx, s.d.Queue, s.starter.Names, time.Now()); err != nil {
		s.d.Logger.Warn("start the artifact sweep", slog.String("error", err.Error()))
	}
	if n, err := s.RepairStalled(ctx, time.Now()); err != nil {
		s.d.Logger.Error("repair stalled harvests", slog.String("error", err.Error()))
	} else if n > 0 {
		s.d.Logger.Warn("stalled harvests repaired", slog.Int("jobs", n))
	}
	if n, err := s.Plan(ctx, time.Now()); err != nil {
		s.d.Logger.Error("plan live harvests", slog.String("error", err.Error()))
	} else if n > 0 {
		s.d.Logger.Info("live harvests planned", slog.Int("containers", n))
	}
}

// Plan starts a live harvest of every enabled container not walked within
// the refresh time, unless live harvesting is switched off (the api's
// feature disabled_live_harvesting: store.LiveHarvestingOff). The request id
// is derived from the container and the refresh slot, so any number of
// schedulers planning at once create one job and one walk task per
// container and slot.
func (s *Scheduler) Plan(ctx context.Context, now time.Time) (int, error) {
	db := s.d.DB.WithContext(ctx)
	if off, err := store.LiveHarvestingOff(db); err != nil || off {
		return 0, err
	}
	refresh := s.d.Config.HarvestRefreshTime
	slot := now.UnixNano() / int64(refresh)
	due, err := store.DueContainers(db, now.Add(-refresh))
	if err != nil {
		return 0, err
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

// RepairStalled re-enqueues the work of unfinished harvests that made no
// progress for JobStallTimeout: tasks can be lost with a Redis that restarts
// without persistence, or archived after their retries ran out while
// Postgres was down. Handlers are idempotent, so a repair of a job whose
// tasks were only slow costs work, not correctness. Each job is claimed by
// bumping its updated time, so two schedulers repair it once.
func (s *Scheduler) RepairStalled(ctx context.Context, now time.Time) (int, error) {
	stall := s.d.Config.JobStallTimeout
	db := s.d.DB.WithContext(ctx)
	stalled, err := store.StalledJobs(db, now.Add(-7*24*time.Hour), now.Add(-stall))
	if err != nil {
		return 0, err
	}
	repaired := 0
	for _, job := range stalled {
		claimed, err := store.ClaimJob(db, job, now)
		if err != nil {
			return repaired, err
		}
		if !claimed {
			continue // another scheduler took it, or it progressed
		}
		token := "r" + strconv.FormatInt(now.UnixNano(), 36) + ":"
		if err := jobs.Repair(ctx, s.d.Queue, s.starter.Names, job, token); err != nil {
			return repaired, fmt.Errorf("repair harvest %s: %w", job.RequestID, err)
		}
		repaired++
	}
	return repaired, nil
}
