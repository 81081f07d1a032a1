package worker

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/queue"
)

// A worker process that dies (SIGKILL, OOM, a lost machine) leaves its
// tasks active in asynq, leased. asynq gives them back only once the lease
// has been expired for 30 s and its recoverer next looks (each minute):
// 60 to 120 s during which a harvest stands still. The reaper gives them
// back within seconds instead:
//
//   - every worker process registers itself with a short-lived key
//     (reaperTTL, renewed each reaperBeat) that lists the tasks it holds:
//     those its handlers run, and those they finished less than
//     reaperKeepFinished ago (asynq marks a task done just after its
//     handler returns; until then it is still active);
//   - every worker, each reaperEvery, moves back to the front of its
//     pending list each active task that no live worker lists and whose
//     asynq lease was not set or renewed for reaperGrace, in one Lua
//     script for all queues, so that no worker can finish or renew it
//     halfway. The lease condition covers the moment between asynq's
//     dequeue and the next beat, when the task runs but is not listed yet:
//     a live asynq process renews its leases every 5 s and the lease of a
//     freshly dequeued task is new.
//
// A worker is dead when its key expires: at most reaperTTL after its last
// beat. Its tasks run again at most reaperTTL + reaperEvery after its death
// (plus the time a worker takes to pick them up); handlers are idempotent,
// so a task that ran halfway runs again to the same rows. A worker that
// could not reach Redis does not reap until reaperTTL after it can again:
// the others could not beat either, and their keys may have expired
// meanwhile (a Redis restart) although they live. A task given back
// reaperMaxTakeovers times (it may be what kills its workers) is left to
// asynq's recoverer, which counts it as a retry and archives it when
// retries run out. Hosts' clocks must agree within reaperGrace - 1 s: a
// lease is written with the clock of the worker that took the task.
const (
	reaperBeat         = time.Second
	reaperTTL          = 5 * time.Second
	reaperEvery        = 2 * time.Second
	reaperGrace        = 5 * time.Second
	reaperKeepFinished = 30 * time.Second
	reaperMaxTakeovers = 3
	// asynqLease is asynq's lease of a task (rdb.LeaseDuration): a lease
	// expiring at t was set or renewed at t - asynqLease.
	asynqLease = 30 * time.Second
)

// reaper registers this worker process and gives back the tasks of dead
// ones. See the comment above for the rules.
type reaper struct {
	rdb   *redis.Client
	names queue.Names
	log   *slog.Logger
	id    string

	now func() time.Time // the worker's clock (Deps.Now)

	mu       sync.Mutex
	running  map[string]int       // task id -> handlers running it in this process
	finished map[string]time.Time // task id -> when its handler returned

	// trustFrom is when this worker may reap again after it could not
	// reach Redis (zero: it may): the others could not beat either, and
	// their keys may have expired meanwhile (a Redis restart) although
	// they live. Only run's goroutine uses it.
	trustFrom time.Time
}

func newReaper(rdb *redis.Client, names queue.Names, log *slog.Logger) *reaper {
	return &reaper{rdb: rdb, names: names, log: log, id: ids.New(), running: map[string]int{}, finished: map[string]time.Time{}, now: time.Now}
}

// workersKey is the set of registered worker ids; workerKey(id) lists the
// tasks worker id holds, and exists while it lives. Both carry the
// namespace, like the queues.
func (r *reaper) workersKey() string { return "metaharvest:reaper:" + r.names.Namespace + ":workers" }

func (r *reaper) workerKey(id string) string {
	return "metaharvest:reaper:" + r.names.Namespace + ":worker:" + id
}

// heldSentinel keeps a worker's set existing when it holds no task.
const heldSentinel = "-"

// middleware records the tasks this process's handlers run.
func (r *reaper) middleware() asynq.MiddlewareFunc {
	return func(next asynq.Handler) asynq.Handler {
		return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
			id, _ := asynq.GetTaskID(ctx)
			defer r.hold(id)()
			return next.ProcessTask(ctx, t)
		})
	}
}

// hold records that a handler of this process runs task id, until the
// function it returns is called.
func (r *reaper) hold(id string) (release func()) {
	r.mu.Lock()
	r.running[id]++
	delete(r.finished, id)
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		if r.running[id]--; r.running[id] <= 0 {
			delete(r.running, id)
			r.finished[id] = r.now()
		}
		r.mu.Unlock()
	}
}

// held lists the tasks to declare at this beat, forgetting those finished
// long enough ago.
func (r *reaper) held(now time.Time) []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]any, 0, 1+len(r.running)+len(r.finished))
	out = append(out, heldSentinel)
	for id := range r.running {
		out = append(out, id)
	}
	for id, at := range r.finished {
		if now.Sub(at) > reaperKeepFinished {
			delete(r.finished, id)
			continue
		}
		out = append(out, id)
	}
	return out
}

// beat declares this worker alive with the tasks it holds.
func (r *reaper) beat(ctx context.Context) error {
	key := r.workerKey(r.id)
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, key)
		p.SAdd(ctx, key, r.held(r.now())...)
		p.PExpire(ctx, key, reaperTTL)
		p.SAdd(ctx, r.workersKey(), r.id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("reaper beat: %w", err)
	}
	return nil
}

// run beats and reaps until ctx ends. The first beat comes before the
// worker takes any task (Run calls beat first).
func (r *reaper) run(ctx context.Context) {
	beat := time.NewTicker(reaperBeat)
	defer beat.Stop()
	reap := time.NewTicker(reaperEvery)
	defer reap.Stop()
	r.reapLogged(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			if err := r.beat(ctx); err != nil {
				r.distrust(ctx, err, "worker heartbeat failed")
			}
		case <-reap.C:
			r.reapLogged(ctx)
		}
	}
}

// distrust notes that Redis could not be reached: no reaping until every
// live worker has had reaperTTL of beats to register again.
func (r *reaper) distrust(ctx context.Context, err error, what string) {
	if ctx.Err() != nil {
		return
	}
	r.trustFrom = r.now().Add(reaperTTL + reaperBeat)
	r.log.Warn(what, slog.String("error", err.Error()))
}

func (r *reaper) reapLogged(ctx context.Context) {
	now := r.now()
	if now.Before(r.trustFrom) {
		return
	}
	moved, err := r.reap(ctx, now)
	switch {
	case err != nil:
		r.distrust(ctx, err, "taking over the tasks of dead workers failed")
	case len(moved) > 0:
		r.log.Warn("took over the tasks of a dead worker", slog.Int("tasks", len(moved)), slog.Any("task_ids", moved))
	}
}

// unregister removes this worker's key at a graceful stop, once asynq has
// given back what it did not finish.
func (r *reaper) unregister(ctx context.Context) {
	r.rdb.Del(ctx, r.workerKey(r.id))
	r.rdb.SRem(ctx, r.workersKey(), r.id)
}

// reap gives back the tasks of dead workers (see the rules above) and
// returns their ids. now is the reaper's clock, against which leases are
// judged.
func (r *reaper) reap(ctx context.Context, now time.Time) ([]string, error) {
	ids, err := r.rdb.SMembers(ctx, r.workersKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	var live []string
	if len(ids) > 0 {
		pipe := r.rdb.Pipeline()
		exists := make([]*redis.IntCmd, len(ids))
		for i, id := range ids {
			exists[i] = pipe.Exists(ctx, r.workerKey(id))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("look up workers: %w", err)
		}
		var dead []any
		for i, id := range ids {
			if exists[i].Val() == 1 {
				live = append(live, r.workerKey(id))
			} else {
				dead = append(dead, id)
			}
		}
		if len(dead) > 0 {
			// A worker that beats again adds itself back.
			r.rdb.SRem(ctx, r.workersKey(), dead...)
		}
	}
	qs := r.names.All()
	keys := make([]string, 0, 3*len(qs)+len(live))
	argv := make([]any, 0, 4+len(qs))
	// A lease expiring after cutoff was set or renewed less than
	// reaperGrace ago.
	cutoff := now.Add(asynqLease - reaperGrace).Unix()
	argv = append(argv, len(qs), cutoff, reaperMaxTakeovers, now.UnixNano())
	for _, q := range qs {
		prefix := "asynq:{" + q + "}:"
		keys = append(keys, prefix+"active", prefix+"lease", prefix+"pending")
		argv = append(argv, prefix+"t:")
	}
	keys = append(keys, live...)
	res, err := reapScript.Run(ctx, r.rdb, keys, argv...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("give back tasks: %w", err)
	}
	return res, nil
}

// reapScript moves the active tasks that no live worker holds and whose
// lease is old back to the front of their pending lists, as asynq does
// with the tasks a stopping worker gives back (state pending, lease
// removed), atomically with respect to the workers' own scripts.
//
// KEYS: for each of ARGV[1] queues its active list, lease set and pending
// list; then the held sets of the live workers.
// ARGV: [1] number of queues, [2] lease cutoff (Unix seconds: a lease
// expiring after it is too recent), [3] most takeovers of one task, [4]
// now in Unix nanoseconds (pending_since, which asynq's queue latency
// reads), then each queue's task key prefix. A task whose hash is gone is
// left alone.
var reapScript = redis.NewScript(`
local nq = tonumber(ARGV[1])
local cutoff = tonumber(ARGV[2])
local maxTakeovers = tonumber(ARGV[3])
local moved = {}
for q = 1, nq do
	local active, lease, pending = KEYS[3*q-2], KEYS[3*q-1], KEYS[3*q]
	local prefix = ARGV[4+q]
	for _, id in ipairs(redis.call("LRANGE", active, 0, -1)) do
		local held = false
		for i = 3*nq+1, #KEYS do
			if redis.call("SISMEMBER", KEYS[i], id) == 1 then
				held = true
				break
			end
		end
		local key = prefix .. id
		local expires = tonumber(redis.call("ZSCORE", lease, id) or "0")
		local taken = tonumber(redis.call("HGET", key, "mh_takeovers") or "0")
		if not held and expires <= cutoff and taken < maxTakeovers and redis.call("EXISTS", key) == 1 then
			redis.call("LREM", active, 0, id)
			redis.call("ZREM", lease, id)
			redis.call("RPUSH", pending, id)
			redis.call("HSET", key, "state", "pending", "pending_since", ARGV[4], "mh_takeovers", taken + 1)
			table.insert(moved, id)
		end
	end
end
return moved
`)
