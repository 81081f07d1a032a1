package worker

import (
	"context"
	"runtime/debug"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/metaharvest/metaharvest/internal/queue"
)

// asynqVersion is the asynq module this test binary was built with, for
// the failure messages.
func asynqVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/hibiken/asynq" {
				return m.Version
			}
		}
	}
	return "(unknown version)"
}

// The reaper reads and writes asynq's private Redis keys (reaper.go):
// asynq:{queue}:pending, :active (lists of task ids), :lease (a sorted set
// of task ids scored by their lease's end in Unix seconds, asynqLease
// after the lease was set) and :t:<id> (a hash whose "state" field says
// pending or active, and "pending_since" the Unix nanoseconds a pending
// task waits since). It gives a task back by pushing it on the end of
// pending that asynq takes next. This test pins that layout with the real
// asynq client and server: an upgrade of asynq that changes it fails here,
// not silently in the reaper (a dead worker's tasks would then wait for
// asynq's own recovery, 60 to 120 s, or be lost).
func TestAsynqKeyLayoutOfTheReaper(t *testing.T) {
	t.Parallel()
	f := newReaperFixture(t)
	ctx := context.Background()
	rdb := f.reaper().rdb
	q := f.names.Stage(5)
	p := "asynq:{" + q + "}:"
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("asynq %s: "+format+"; the reaper (worker/reaper.go) relies on it", append([]any{asynqVersion()}, args...)...)
	}
	keyType := func(key, want string) {
		t.Helper()
		if got := rdb.Type(ctx, key).Val(); got != want {
			fail("%s is a %q, want a %s", key, got, want)
		}
	}

	// Enqueued: a hash per task (state pending, pending_since in Unix
	// nanoseconds) and the pending list; the first enqueued is next, at
	// the list's right end.
	before := time.Now()
	var ids []string
	for _, payload := range []string{"first", "second"} {
		info, err := f.cl.Enqueue(asynq.NewTask(queue.TypeItem, []byte(payload)), asynq.Queue(q), asynq.Retention(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	enqueued := time.Now()
	first := ids[0]
	keyType(p+"pending", "list")
	if got := rdb.LRange(ctx, p+"pending", 0, -1).Val(); !slices.Equal(got, []string{ids[1], ids[0]}) {
		fail("pending list %v after enqueueing %v: the next task is not at its right end", got, ids)
	}
	for _, id := range ids {
		keyType(p+"t:"+id, "hash")
		h := rdb.HGetAll(ctx, p+"t:"+id).Val()
		since, err := strconv.ParseInt(h["pending_since"], 10, 64)
		if h["state"] != "pending" || err != nil || since < before.UnixNano() || since > enqueued.UnixNano() {
			fail("task hash %s: state %q, pending_since %q (want Unix nanoseconds between %d and %d)",
				id, h["state"], h["pending_since"], before.UnixNano(), enqueued.UnixNano())
		}
	}

	// Leased by a real server: the task moves from pending to the active
	// list, its hash says active (without pending_since), and the lease
	// set scores it with its lease's end, asynqLease after the dequeue.
	started := make(chan string, 2)
	release := make(chan struct{})
	mux := asynq.NewServeMux()
	mux.HandleFunc(queue.TypeItem, func(ctx context.Context, _ *asynq.Task) error {
		id, _ := asynq.GetTaskID(ctx)
		started <- id
		<-release
		return nil
	})
	srv := asynq.NewServer(f.opt, asynq.Config{Concurrency: 1, Queues: map[string]int{q: 1}, LogLevel: asynq.FatalLevel,
		TaskCheckInterval: 25 * time.Millisecond})
	dequeuedFrom := time.Now()
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	var got string
	select {
	case got = <-started:
	case <-time.After(time.Minute):
		t.Fatal("the asynq server took no task in a minute")
	}
	seen := time.Now()
	if got != first {
		fail("the server took %s first, want %s (the right end of pending)", got, first)
	}
	keyType(p+"active", "list")
	keyType(p+"lease", "zset")
	if active := rdb.LRange(ctx, p+"active", 0, -1).Val(); !slices.Equal(active, []string{first}) {
		fail("active list %v, want [%s]", active, first)
	}
	if pending := rdb.LRange(ctx, p+"pending", 0, -1).Val(); !slices.Equal(pending, []string{ids[1]}) {
		fail("pending list %v while %s runs, want [%s]", pending, first, ids[1])
	}
	score, err := rdb.ZScore(ctx, p+"lease", first).Result()
	lo, hi := dequeuedFrom.Add(asynqLease).Unix(), seen.Add(asynqLease).Unix()
	if err != nil || int64(score) < lo || int64(score) > hi {
		fail("lease of %s: %v %v, want the Unix second of the dequeue (or a renewal) + %s, between %d and %d",
			first, score, err, asynqLease, lo, hi)
	}
	h := rdb.HGetAll(ctx, p+"t:"+first).Val()
	if _, waits := h["pending_since"]; h["state"] != "active" || waits {
		fail("task hash of a running task: %v, want state active and no pending_since", h)
	}
	// The reaper's test imitates this dequeue (reaperFixture.take): the
	// same keys, fields and values, but for the lease's end.
	sim := f.reaper()
	if _, err := f.cl.Enqueue(asynq.NewTask(queue.TypeItem, []byte("imitated")), asynq.Queue(f.names.Stage(6))); err != nil {
		t.Fatal(err)
	}
	simID := f.take(sim, f.names.Stage(6), time.Now().Add(asynqLease))
	sp := "asynq:{" + f.names.Stage(6) + "}:"
	simHash := rdb.HGetAll(ctx, sp+"t:"+simID).Val()
	delete(simHash, "msg")
	delete(h, "msg")
	if len(simHash) != len(h) || simHash["state"] != h["state"] || rdb.ZScore(ctx, sp+"lease", simID).Err() != nil ||
		!slices.Equal(rdb.LRange(ctx, sp+"active", 0, -1).Val(), []string{simID}) {
		t.Fatalf("reaperFixture.take leaves %v, asynq's dequeue %v: update take", simHash, h)
	}

	// Done: the task leaves the active list and the lease set (completed,
	// kept for its retention).
	close(release)
	deadline := time.Now().Add(time.Minute)
	for rdb.LLen(ctx, p+"active").Val() != 0 || rdb.ZScore(ctx, p+"lease", first).Err() != redis.Nil ||
		rdb.HGet(ctx, p+"t:"+first, "state").Val() != "completed" {
		if time.Now().After(deadline) {
			fail("after its handler returned, %s: active %v, lease %v, state %q", first, rdb.LRange(ctx, p+"active", 0, -1).Val(),
				rdb.ZScore(ctx, p+"lease", first).Err(), rdb.HGet(ctx, p+"t:"+first, "state").Val())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if info, err := f.in.GetTaskInfo(q, first); err != nil || info.State != asynq.TaskStateCompleted {
		t.Fatalf("inspector: %v %v", info, err)
	}
}
