package worker

import (
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
)

// What the worker records is stamped by its injected clock (Deps.Now): the
// activity rows of a walk and a harvest, the job's last update, the items'
// harvest times. (An extractor's own row keeps the time its run ended, as
// the extractor runner measured it.)
func TestWorkerRecordsByItsClock(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	f.deps.Now = func() time.Time { return at }
	f.write("a.txt", "one")
	f.write("b.txt", "two")
	f.startWorker()
	id := f.harvest(jobs.Spec{})
	job := f.waitJob(id, time.Minute)
	if !job.Updated.Equal(at) {
		t.Errorf("job updated %s, want the clock's %s", job.Updated, at)
	}
	var stamps []time.Time
	if err := f.db.Model(&models.Activity{}).Where("request_id = ? AND kind <> ?", id, models.ActivityExtractor).Pluck("ts", &stamps).Error; err != nil {
		t.Fatal(err)
	}
	var harvested []time.Time
	if err := f.db.Model(&models.Item{}).Pluck("last_harvested", &harvested).Error; err != nil {
		t.Fatal(err)
	}
	stamps = append(stamps, harvested...)
	if len(stamps) < 5 { // a walk page, two harvestends, two items
		t.Fatalf("%d activity rows", len(stamps))
	}
	for _, ts := range stamps {
		if !ts.Equal(at) {
			t.Errorf("activity at %s, want the clock's %s", ts, at)
		}
	}
}
