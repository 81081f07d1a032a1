package worker

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testredis"
)

// reaperFixture is a Redis namespace with an asynq client and inspector.
type reaperFixture struct {
	t     *testing.T
	names queue.Names
	opt   asynq.RedisConnOpt
	cl    *asynq.Client
	in    *asynq.Inspector
}

func newReaperFixture(t *testing.T) *reaperFixture {
	opt, err := queue.RedisOpt(testredis.URL())
	if err != nil {
		t.Fatal(err)
	}
	f := &reaperFixture{t: t, names: queue.Names{Namespace: testredis.Namespace(t)}, opt: opt,
		cl: asynq.NewClient(opt), in: asynq.NewInspector(opt)}
	t.Cleanup(func() { f.cl.Close(); f.in.Close() })
	return f
}

func (f *reaperFixture) reaper() *reaper {
	rdb, err := queue.RedisClient(testredis.URL())
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { rdb.Close() })
	return newReaper(rdb, f.names, slog.New(slog.DiscardHandler))
}

// take does what asynq's dequeue does (pending -> active, a lease expiring
// at leaseEnd) with the next task of q, and returns its id.
func (f *reaperFixture) take(r *reaper, q string, leaseEnd time.Time) string {
	ctx := context.Background()
	p := "asynq:{" + q + "}:"
	id, err := r.rdb.LMove(ctx, p+"pending", p+"active", "RIGHT", "LEFT").Result() // asynq's RPOPLPUSH
	if err != nil {
		f.t.Fatal(err)
	}
	r.rdb.HSet(ctx, p+"t:"+id, "state", "active")
	r.rdb.HDel(ctx, p+"t:"+id, "pending_since")
	r.rdb.ZAdd(ctx, p+"lease", redis.Z{Score: float64(leaseEnd.Unix()), Member: id})
	return id
}

func (f *reaperFixture) state(q, id string) asynq.TaskState {
	info, err := f.in.GetTaskInfo(q, id)
	if err != nil {
		f.t.Fatalf("task %s: %v", id, err)
	}
	return info.State
}

// The rules of a takeover, on tasks put in each situation by hand: only a
// task that no live worker holds, whose lease is old and that was not
// taken over too often goes back to its queue, at the front; a dead
// worker is forgotten.
func TestReaperGivesBackOnlyOrphans(t *testing.T) {
	t.Parallel()
	f := newReaperFixture(t)
	ctx := context.Background()
	q := f.names.Stage(5)
	for i := 0; i < 6; i++ {
		if _, err := f.cl.Enqueue(asynq.NewTask(queue.TypeItem, []byte{byte('a' + i)}), asynq.Queue(q)); err != nil {
			t.Fatal(err)
		}
	}
	live, dead, other := f.reaper(), f.reaper(), f.reaper()
	now := time.Now()
	old := now.Add(asynqLease - reaperGrace - 2*time.Second)
	heldByLive := f.take(live, q, old)
	orphan := f.take(live, q, old)
	fresh := f.take(live, q, now.Add(asynqLease))
	tooOften := f.take(live, q, old)
	live.rdb.HSet(ctx, "asynq:{"+q+"}:t:"+tooOften, "mh_takeovers", reaperMaxTakeovers)
	finishedByLive := f.take(live, q, old)

	// live runs heldByLive and has just finished finishedByLive (asynq
	// has not marked it done yet); dead registered and its key expired.
	defer live.hold(heldByLive)()
	live.hold(finishedByLive)()
	for _, r := range []*reaper{live, dead} {
		if err := r.beat(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if ttl := live.rdb.PTTL(ctx, live.workerKey(live.id)).Val(); ttl <= 0 || ttl > reaperTTL {
		t.Errorf("a worker's key lives %s, want at most %s", ttl, reaperTTL)
	}
	live.rdb.Del(ctx, dead.workerKey(dead.id))

	// A reaper that could not reach Redis waits before it trusts that
	// missing keys mean dead workers.
	other.distrust(ctx, errors.New("connection refused"), "test")
	other.reapLogged(ctx)
	if got := f.state(q, orphan); got != asynq.TaskStateActive {
		t.Fatalf("a reaper fresh from a Redis outage took over a task (%v)", got)
	}
	other.trustFrom = time.Time{}
	moved, err := other.reap(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(moved, []string{orphan}) {
		t.Fatalf("moved %v, want only %s", moved, orphan)
	}
	for id, want := range map[string]asynq.TaskState{heldByLive: asynq.TaskStateActive, orphan: asynq.TaskStatePending,
		fresh: asynq.TaskStateActive, tooOften: asynq.TaskStateActive, finishedByLive: asynq.TaskStateActive} {
		if got := f.state(q, id); got != want {
			t.Errorf("task %s: %v, want %v", id, got, want)
		}
	}
	// At the front: the next task a worker takes.
	if next := live.rdb.LIndex(ctx, "asynq:{"+q+"}:pending", -1).Val(); next != orphan {
		t.Errorf("next pending task %s, want %s", next, orphan)
	}
	if live.rdb.ZScore(ctx, "asynq:{"+q+"}:lease", orphan).Err() == nil {
		t.Error("the orphan kept its lease")
	}
	if ws := live.rdb.SMembers(ctx, live.workersKey()).Val(); slices.Contains(ws, dead.id) || !slices.Contains(ws, live.id) {
		t.Errorf("registered workers %v: want %s, not the dead %s", ws, live.id, dead.id)
	}
	// Once the lease is old enough, fresh goes too, and a graceful stop
	// leaves no key behind.
	if moved, _ := other.reap(ctx, now.Add(reaperGrace+time.Second)); !slices.Equal(moved, []string{fresh}) {
		t.Errorf("later: moved %v, want %s", moved, fresh)
	}
	live.unregister(ctx)
	if n := live.rdb.Exists(ctx, live.workerKey(live.id)).Val(); n != 0 || slices.Contains(live.rdb.SMembers(ctx, live.workersKey()).Val(), live.id) {
		t.Error("unregister left the worker registered")
	}
}

// A live worker's task is never taken over, however long it runs: a real
// asynq server runs a task longer than reaperGrace while a second worker's
// reaper runs over and over; the task runs once and completes.
func TestReaperLeavesALiveWorkersTask(t *testing.T) {
	t.Parallel()
	f := newReaperFixture(t)
	ctx := context.Background()
	q := f.names.Stage(5)
	live, other := f.reaper(), f.reaper()
	if err := live.beat(ctx); err != nil {
		t.Fatal(err)
	}
	beatCtx, stopBeats := context.WithCancel(ctx)
	defer stopBeats()
	go func() { // the beats of live's run, without its reaps
		for tick := time.NewTicker(reaperBeat); ; {
			select {
			case <-beatCtx.Done():
				tick.Stop()
				return
			case <-tick.C:
				live.beat(beatCtx)
			}
		}
	}()
	var runs atomic.Int32
	release := make(chan struct{})
	mux := asynq.NewServeMux()
	mux.Use(live.middleware())
	mux.HandleFunc(queue.TypeItem, func(ctx context.Context, _ *asynq.Task) error {
		runs.Add(1)
		<-release
		return nil
	})
	srv := asynq.NewServer(f.opt, asynq.Config{Concurrency: 2, Queues: f.names.Weights(), LogLevel: asynq.FatalLevel,
		TaskCheckInterval: 25 * time.Millisecond})
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	info, err := f.cl.Enqueue(asynq.NewTask(queue.TypeItem, nil), asynq.Queue(q), asynq.Retention(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for runs.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the task did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Past the grace of a fresh lease, with the reaper's clock running
	// ahead as well.
	until := time.Now().Add(reaperGrace + 2*time.Second)
	for time.Now().Before(until) {
		if moved, err := other.reap(ctx, time.Now().Add(2*time.Second)); err != nil || len(moved) != 0 {
			t.Fatalf("reaped a live worker's task: %v %v", moved, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	close(release)
	for f.state(q, info.ID) != asynq.TaskStateCompleted {
		if time.Now().After(deadline) {
			t.Fatalf("the task did not complete: %v", f.state(q, info.ID))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the task ran %d times", n)
	}
}
