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
