package api

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
)

type systemStatsBody struct {
	Queues []queueStatsJSON `json:"queues"`
	Jobs   struct {
		Running int64 `json:"running"`
		Pending int64 `json:"pending"`
	} `json:"jobs"`
	Workers int `json:"workers"`
}

func (e *env) systemStats(tok string) systemStatsBody {
	e.t.Helper()
	var b systemStatsBody
	e.do("GET", "/api/control/system/stats", tok, nil).status(200).decode(&b)
	return b
}

func TestSystemStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	names := queue.Names{Namespace: e.cfg.RedisNamespace}
	wantNames := []string{"walk", "index", "maintenance"}
	for p := 1; p <= 10; p++ {
		wantNames = append(wantNames, fmt.Sprintf("stage%02d", p))
	}

	// Nothing enqueued, no worker: every queue listed, all zeros.
	got := e.systemStats(e.adminToken)
	var gotNames []string
	for _, q := range got.Queues {
		gotNames = append(gotNames, q.Name)
		if q != (queueStatsJSON{Name: q.Name}) {
			t.Fatalf("empty queue %+v", q)
		}
	}
	if !reflect.DeepEqual(gotNames, wantNames) || got.Workers != 0 || got.Jobs.Running != 0 || got.Jobs.Pending != 0 {
		t.Fatalf("empty stats %+v", got)
	}

	// Tasks in this env's namespace: two pending on stage01, one scheduled
	// walk, one archived on stage10.
	enqueue := func(q string, opts ...asynq.Option) *asynq.TaskInfo {
		t.Helper()
		info, err := e.queue.Enqueue(asynq.NewTask("test:noop", nil), append(opts, asynq.Queue(q))...)
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	enqueue(names.Stage(1))
	enqueue(names.Stage(1))
	enqueue(names.Walk(), asynq.ProcessIn(time.Hour))
	archived := enqueue(names.Stage(10))
	opt, err := queue.RedisOpt(e.cfg.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	if err := insp.ArchiveTask(names.Stage(10), archived.ID); err != nil {
		t.Fatal(err)
	}

	// Jobs as the workers leave them.
	w := newActWorld(e)
	loc, ctr := w.location("loc-stats", nil, nil)
	hidLoc, hidCtr := w.location("loc-stats-hidden", []string{"g-stats"}, nil)
	now := time.Now().UTC()
	// job writes a job and, for each of its first finished enqueued items, the
	// harvestend row a worker writes when it is done with an item.
	job := func(id, locID, ctrID string, finished int, change func(*models.Job)) {
		t.Helper()
		j := models.Job{RequestID: id, JobType: "harvest", LocationID: locID, ContainerID: ctrID,
			Extractors: models.Strings{}, Options: models.MustJSON(map[string]any{}), Priority: 5, Created: now, Updated: now}
		change(&j)
		updated := j.Updated
		w.create(&j)
		// GORM sets updated on create; put the intended value back.
		if err := e.db.Exec(`UPDATE jobs SET updated = ? WHERE request_id = ?`, updated, id).Error; err != nil {
			t.Fatal(err)
		}
		for k := range finished {
			w.create(&models.Activity{DedupeKey: fmt.Sprintf("end:%s:%d", id, k), TS: now, Kind: models.ActivityHarvestEnd,
				RequestID: id, LocationID: locID, ContainerID: ctrID, ItemID: fmt.Sprint(k), Extractors: models.Strings{}})
		}
	}
	job("waiting", loc, ctr, 0, func(j *models.Job) {})                                         // running, pending
	job("walking", loc, ctr, 0, func(j *models.Job) { j.WalkedCount, j.EnqueuedCount = 10, 4 }) // running
	job("items", loc, ctr, 3, func(j *models.Job) {                                             // running
		j.WalkComplete, j.WalkedCount, j.EnqueuedCount, j.IndexedCount = true, 5, 5, 3
	})
	job("failing", loc, ctr, 0, func(j *models.Job) { j.ErrorCount = 1 }) // running
	job("one-item", loc, ctr, 0, func(j *models.Job) {                    // running, pending
		j.ItemID, j.WalkComplete, j.WalkedCount, j.EnqueuedCount = "it", true, 1, 1
	})
	job("done", loc, ctr, 2, func(j *models.Job) {
		j.WalkComplete, j.WalkedCount, j.EnqueuedCount, j.IndexedCount = true, 2, 2, 2
	})
	// Finished although nothing was indexed (the item was gone): harvestend
	// rows, not indexed_count, say an item is done.
	job("done-nothing-indexed", loc, ctr, 1, func(j *models.Job) {
		j.ItemID, j.WalkComplete, j.WalkedCount, j.EnqueuedCount = "gone", true, 1, 1
	})
	job("cancelled", loc, ctr, 0, func(j *models.Job) { j.Cancelled = true })
	job("stale", loc, ctr, 0, func(j *models.Job) { j.Updated = now.Add(-49 * time.Hour) })
	job("hidden", hidLoc, hidCtr, 0, func(j *models.Job) {}) // running, pending; admins only

	got = e.systemStats(e.adminToken)
	counts := map[string]queueStatsJSON{}
	for _, q := range got.Queues {
		counts[q.Name] = q
	}
	if c := counts["stage01"]; c.Pending != 2 || c.Active+c.Scheduled+c.Retry+c.Archived+c.Completed != 0 {
		t.Fatalf("stage01 %+v", c)
	}
	if c := counts["walk"]; c.Scheduled != 1 || c.Pending != 0 {
		t.Fatalf("walk %+v", c)
	}
	if c := counts["stage10"]; c.Archived != 1 || c.Pending != 0 {
		t.Fatalf("stage10 %+v", c)
	}
	if got.Jobs.Running != 6 || got.Jobs.Pending != 3 {
		t.Fatalf("admin jobs %+v", got.Jobs)
	}
	_, outsider := e.userWithScopes("stats@example.com", "system:read")
	if o := e.systemStats(outsider); o.Jobs.Running != 5 || o.Jobs.Pending != 2 || !reflect.DeepEqual(o.Queues, got.Queues) {
		t.Fatalf("outsider stats %+v", o)
	}

	// A worker process serving one of this deployment's queues counts; it
	// serves only maintenance, so it leaves the tasks above alone.
	srv := asynq.NewServer(opt, asynq.Config{Concurrency: 1, Queues: map[string]int{names.Maintenance(): 1},
		LogLevel: asynq.FatalLevel})
	if err := srv.Start(asynq.HandlerFunc(func(context.Context, *asynq.Task) error { return nil })); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if n := e.systemStats(e.adminToken).Workers; n == 1 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("workers %d, want 1", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c := e.systemStats(e.adminToken); !reflect.DeepEqual(c.Queues, got.Queues) {
		t.Fatalf("queues changed with an idle worker: %+v", c.Queues)
	}
}
