package jobs

import (
	"context"
	"strconv"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/queue"
)

// SweepEvery is how often the artifact store is swept for files no row
// refers to (left by a crash between a harvest's publishing and its
// commit, or by a removal that failed while the store was away).
const SweepEvery = 24 * time.Hour

// StartSweep enqueues the sweep of the period now falls in; any number of
// schedulers calling it start one sweep a period (its task id is derived
// from the period and kept for longer than one).
func StartSweep(ctx context.Context, c *asynq.Client, n queue.Names, now time.Time) error {
	run := "p" + strconv.FormatInt(now.UnixNano()/int64(SweepEvery), 10)
	return EnqueueSweep(ctx, c, n, queue.ArtifactSweepPayload{Run: run})
}

// EnqueueSweep enqueues one stretch of a sweep; a stretch enqueued twice
// (a re-delivered predecessor) runs once.
func EnqueueSweep(ctx context.Context, c *asynq.Client, n queue.Names, p queue.ArtifactSweepPayload) error {
	t, err := queue.NewTask(queue.TypeArtifactSweep, p)
	if err != nil {
		return err
	}
	return Enqueue(ctx, c, t, asynq.Queue(n.Maintenance()), asynq.TaskID("sweep:"+p.Run+":"+ids.Derived(p.After)),
		asynq.MaxRetry(10), asynq.Timeout(10*time.Minute), asynq.Retention(SweepEvery+time.Hour))
}
