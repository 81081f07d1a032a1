package worker

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// TestHarvestNamesNotUTF8: files and folders whose names are not UTF-8
// (Latin-1, from old archives) are harvested like the others, under their
// escaped names (storage.escapeName), and found by the words of their
// names. Such a name once failed every walk page that held it: the job
// never ended and no file of the container was harvested.
func TestHarvestNamesNotUTF8(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	raw := map[string]string{ // name on disk -> escaped item path
		"caf\xe9 cr\xe8me.txt":    "caf\U0010FFE9 cr\U0010FFE8me.txt",
		"d\xe9j\xe0/ann\xe9e.csv": "d\U0010FFE9j\U0010FFE0/ann\U0010FFE9e.csv",
		"plain.txt":               "plain.txt",
	}
	content := map[string]string{}
	for disk, path := range raw {
		content[path] = "content of " + path + "\n"
		f.write(disk, content[path])
	}
	f.startWorker()
	job := f.waitJob(f.harvest(jobs.Spec{}), time.Minute)
	if job.WalkedCount != 3 || job.IndexedCount != 3 || job.ErrorCount != 0 {
		t.Fatalf("job counts: %+v", job)
	}
	var items []models.Item
	f.db.Where("container_id = ?", f.ctr.ID).Find(&items)
	if len(items) != 3 {
		t.Fatalf("%d items", len(items))
	}
	for _, it := range items {
		want, ok := content[it.Path]
		if !ok {
			t.Errorf("item path %q: not an escaped name of the folder", it.Path)
			continue
		}
		var sums map[string]map[string]any
		if err := json.Unmarshal(it.Metadata, &sums); err != nil {
			t.Fatal(err)
		}
		if got := sums["hashes"]["sha256"]; got != sha256hex([]byte(want)) || it.HarvestFailed {
			t.Errorf("%q: sha256 %s, failed %v: not the file's content", it.Path, got, it.HarvestFailed)
		}
	}
	eng := f.drained()
	for _, word := range []string{"caf", "ann"} {
		res, err := eng.Search(context.Background(), search.Request{Query: word, Limit: 10}, search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.TotalHits != 1 {
			t.Errorf("search %q: %d hits, want the file named with it", word, res.TotalHits)
		}
	}
}

// TestWalkErrorOutlastingRetriesEndsTheJob: a walk page that fails on its
// last attempt (here Postgres refuses its record, every time) is
// recorded as the job's error and completes the walk, instead of leaving
// the job running forever once asynq gives up.
func TestWalkErrorOutlastingRetriesEndsTheJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.write("listed.txt", "listed\n")
	// A page's record counts its files; the failure's record counts none.
	if err := f.db.Exec(`ALTER TABLE activities ADD CONSTRAINT no_pages CHECK (kind <> 'walk' OR count = 0)`).Error; err != nil {
		t.Fatal(err)
	}
	req := f.harvest(jobs.Spec{}) // its walk task waits in Redis: no worker runs
	task, err := queue.NewTask(queue.TypeWalk, queue.WalkPayload{RequestID: req, ContainerID: f.ctr.ID})
	if err != nil {
		t.Fatal(err)
	}
	// Called outside asynq, the attempt has no retries left.
	if err := NewHandler(f.deps).Walk(context.Background(), task); err == nil {
		t.Fatal("the walk of a refused page succeeded")
	}
	var job models.Job
	f.db.Where("request_id = ?", req).Take(&job)
	if !job.WalkComplete || job.ErrorCount != 1 {
		t.Fatalf("after the last attempt: %+v", job)
	}
	var walk models.Activity
	f.db.Where("request_id = ? AND kind = ?", req, models.ActivityWalk).Take(&walk)
	if walk.Error == "" {
		t.Fatalf("the walk's activity has no error: %+v", walk)
	}
}
