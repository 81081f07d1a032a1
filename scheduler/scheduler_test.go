package scheduler

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testredis"
	"github.com/metaharvest/metaharvest/models"
)

func TestTwoSchedulersNeverDoubleEnqueue(t *testing.T) {
	t.Parallel()
	cfg, _ := config.Load(func(string) (string, bool) { return "", false })
	cfg.RedisNamespace = testredis.Namespace(t)
	cfg.HarvestRefreshTime = time.Hour
	db := testdb.New(t)
	opt, _ := queue.RedisOpt(testredis.URL())
	client := asynq.NewClient(opt)
	defer client.Close()
	root := t.TempDir()
	db.Create(&models.Location{ID: "l", Kind: "filesystem", Name: "l", Config: models.MustJSON(map[string]string{"path": root})})
	recent := time.Now().Add(-time.Minute)
	for _, c := range []models.Container{
		{ID: "on1", LocationID: "l", Name: "a", Enabled: true},
		{ID: "on2", LocationID: "l", Name: "b", Enabled: true},
		{ID: "off", LocationID: "l", Name: "c", Enabled: false},
		{ID: "fresh", LocationID: "l", Name: "d", Enabled: true, LastWalked: &recent},
	} {
		if err := db.Create(&c).Error; err != nil {
			t.Fatal(err)
		}
	}
	a := New(Deps{Config: cfg, DB: db, Queue: client})
	b := New(Deps{Config: cfg, DB: db, Queue: client})
	now := time.Now()
	var wg sync.WaitGroup
	for _, s := range []*Scheduler{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Plan(context.Background(), now); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var jobs []models.Job
	db.Order("container_id").Find(&jobs)
	if len(jobs) != 2 || jobs[0].ContainerID != "on1" || jobs[1].ContainerID != "on2" || jobs[0].JobType != "live" {
		t.Fatalf("jobs: %+v", jobs)
	}
	info, err := asynq.NewInspector(opt).GetQueueInfo(queue.Names{Namespace: cfg.RedisNamespace}.Walk())
	if err != nil {
		t.Fatal(err)
	}
	if info.Pending != 2 {
		t.Fatalf("pending walk tasks: %d, want 2", info.Pending)
	}
	// The next refresh slot plans again: the two never walked, and the one
	// walked a minute before the first slot.
	if n, err := a.Plan(context.Background(), now.Add(cfg.HarvestRefreshTime)); err != nil || n != 3 {
		t.Fatalf("next slot: %d %v", n, err)
	}
	var total int64
	db.Model(&models.Job{}).Count(&total)
	if total != 5 {
		t.Fatalf("jobs after second slot: %d", total)
	}
}

func TestRepairStalledOnce(t *testing.T) {
	t.Parallel()
	cfg, _ := config.Load(func(string) (string, bool) { return "", false })
	cfg.RedisNamespace = testredis.Namespace(t)
	cfg.JobStallTimeout = time.Minute
	db := testdb.New(t)
	opt, _ := queue.RedisOpt(testredis.URL())
	client := asynq.NewClient(opt)
	defer client.Close()
	db.Create(&models.Location{ID: "l", Kind: "filesystem", Name: "l", Config: models.JSON(`{"path":"/x"}`)})
	db.Create(&models.Container{ID: "c", LocationID: "l", Name: "c"})
	old := time.Now().Add(-time.Hour)
	for _, j := range []models.Job{
		{RequestID: "stalled-walk", ContainerID: "c", LocationID: "l", Created: old, Updated: old},
		{RequestID: "stalled-items", ContainerID: "c", LocationID: "l", WalkComplete: true, EnqueuedCount: 2, Created: old, Updated: old},
		{RequestID: "stalled-item", ContainerID: "c", LocationID: "l", ItemID: "i1", WalkComplete: true, EnqueuedCount: 1, Priority: 3, Created: old, Updated: old},
		{RequestID: "busy", ContainerID: "c", LocationID: "l", Created: old, Updated: time.Now()},
		{RequestID: "done", ContainerID: "c", LocationID: "l", WalkComplete: true, EnqueuedCount: 0, Created: old, Updated: old},
		{RequestID: "cancelled", ContainerID: "c", LocationID: "l", Cancelled: true, Created: old, Updated: old},
	} {
		j.Options, j.Extractors = models.JSON("{}"), models.Strings{}
		if err := db.Omit("created", "updated").Create(&j).Error; err != nil {
			t.Fatal(err)
		}
		db.Exec(`UPDATE jobs SET created = ?, updated = ? WHERE request_id = ?`, j.Created, j.Updated, j.RequestID)
	}
	a := New(Deps{Config: cfg, DB: db, Queue: client})
	b := New(Deps{Config: cfg, DB: db, Queue: client})
	now := time.Now()
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i, s := range []*Scheduler{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.RepairStalled(context.Background(), now)
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		}()
	}
	wg.Wait()
	if counts[0]+counts[1] != 3 {
		t.Fatalf("repaired %v, want 3 in all", counts)
	}
	names := queue.Names{Namespace: cfg.RedisNamespace}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	walks, _ := insp.GetQueueInfo(names.Walk())
	items, _ := insp.GetQueueInfo(names.Stage(3))
	if walks == nil || walks.Pending != 2 || items == nil || items.Pending != 1 {
		t.Fatalf("repair tasks: walks %+v items %+v", walks, items)
	}
	// Just repaired: not stalled again until another timeout passes.
	if n, _ := a.RepairStalled(context.Background(), now.Add(time.Second)); n != 0 {
		t.Fatalf("repaired again at once: %d", n)
	}
}

// The api's feature switch disabled_live_harvesting is a settings row; while
// it is "true" Plan starts nothing, and planning resumes when it is not.
func TestPlanHonoursDisabledLiveHarvesting(t *testing.T) {
	t.Parallel()
	cfg, _ := config.Load(func(string) (string, bool) { return "", false })
	cfg.RedisNamespace = testredis.Namespace(t)
	cfg.HarvestRefreshTime = time.Hour
	db := testdb.New(t)
	opt, _ := queue.RedisOpt(testredis.URL())
	client := asynq.NewClient(opt)
	defer client.Close()
	db.Create(&models.Location{ID: "l", Kind: "filesystem", Name: "l", Config: models.MustJSON(map[string]string{"path": t.TempDir()})})
	if err := db.Create(&models.Container{ID: "on", LocationID: "l", Name: "a", Enabled: true}).Error; err != nil {
		t.Fatal(err)
	}
	s := New(Deps{Config: cfg, DB: db, Queue: client})
	setSwitch := func(v string) {
		t.Helper()
		if err := db.Exec(`INSERT INTO settings (key, value) VALUES ('feature:disabled_live_harvesting', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, v).Error; err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	setSwitch("true")
	if n, err := s.Plan(context.Background(), now); err != nil || n != 0 {
		t.Fatalf("switched off: planned %d, %v", n, err)
	}
	var jobs int64
	db.Model(&models.Job{}).Count(&jobs)
	if jobs != 0 {
		t.Fatalf("switched off: %d jobs", jobs)
	}
	if _, err := asynq.NewInspector(opt).GetQueueInfo(queue.Names{Namespace: cfg.RedisNamespace}.Walk()); err == nil {
		t.Fatal("switched off: a walk queue exists, so a task was enqueued")
	}
	setSwitch("false")
	if n, err := s.Plan(context.Background(), now); err != nil || n != 1 {
		t.Fatalf("switched on: planned %d, %v", n, err)
	}
}
