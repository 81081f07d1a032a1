package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testproc"
	"github.com/metaharvest/metaharvest/models"
)

// SIGTERM stops every role gracefully and says so: a worker mid-harvest
// takes no new task, finishes or gives back the running ones within
// SHUTDOWN_TIMEOUT (none stays leased to a dead process, so the next worker
// need not wait for a lease to expire), the api drains its connections,
// the scheduler ends its round; all exit 0.
func TestGracefulStopOfEveryRole(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	const n = 1000
	req, ctrID, sha := p.folderJob(n)
	c, api := p.startAPI("SHUTDOWN_TIMEOUT=5", "LOG_LEVEL=info")
	sched := testproc.Start(t, "scheduler", p.env("SHUTDOWN_TIMEOUT=5", "HARVEST_REFRESH_TIME=3600", "LOG_LEVEL=info"))
	w := testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=4", "SHUTDOWN_TIMEOUT=2", "HARVEST_BATCH_FILES=10", "LOG_LEVEL=info"))
	p.waitFor(req, n/4, w)

	// That it stops by SHUTDOWN_TIMEOUT, not when its tasks end, is read
	// from what it reports and leaves (here, and the given-back task of
	// TestWorkerStopGivesBackALongTask); the minute only ends a hang.
	start := time.Now()
	if !w.Terminate(time.Minute) {
		t.Fatalf("the worker did not stop:\n%s", w.Output())
	}
	took := time.Since(start)
	at := p.harvestEnds(req)
	out := w.Output()
	m := regexp.MustCompile(`"msg":"worker stopping: no new tasks; waiting for the running ones","running":(\d+)`).FindStringSubmatch(out)
	d := regexp.MustCompile(`"msg":"worker stopped","finished":(\d+),"requeued":(\d+),"started_late":(\d+)`).FindStringSubmatch(out)
	if w.ExitCode() != 0 || m == nil || d == nil {
		t.Fatalf("worker: exit %d, output:\n%s", w.ExitCode(), out)
	}
	running, _ := strconv.Atoi(m[1])
	finished, _ := strconv.Atoi(d[1])
	requeued, _ := strconv.Atoi(d[2])
	late, _ := strconv.Atoi(d[3])
	// Every task running at the stop, and every one asynq had handed over
	// just before it whose handler started after it, either finished or
	// was given back.
	if finished+requeued != running+late {
		t.Fatalf("worker report: %d running, %d started late, %d finished, %d requeued", running, late, finished, requeued)
	}
	t.Logf("worker stopped in %s with %d of %d files harvested: %d tasks running, %d finished, %d given back",
		took.Round(time.Millisecond), at, n, running, finished, requeued)
	if at >= n {
		t.Fatalf("the job finished before the stop: make it bigger")
	}
	insp := asynq.NewInspector(p.opt)
	defer insp.Close()
	for _, q := range (queue.Names{Namespace: p.ns}).All() {
		if info, err := insp.GetQueueInfo(q); err == nil && info.Active != 0 {
			t.Fatalf("queue %s has %d tasks still leased to the stopped worker", q, info.Active)
		}
	}

	// A new worker finishes the job without waiting for any lease (none is
	// left, above; the deadline is for the harvest, not a measure).
	testproc.Start(t, "worker", p.env("WORKER_CONCURRENCY=4"))
	p.recovered("a graceful worker stop", req, ctrID, n, time.Now(), 3*time.Minute)
	p.checkExactlyOnce(req, ctrID, n, sha)

	// The api drains, the scheduler ends its round.
	c.call("GET", "/readyz", nil, 200)
	if !api.Terminate(time.Minute) || api.ExitCode() != 0 ||
		!strings.Contains(api.Output(), `"msg":"api draining connections"`) ||
		!strings.Contains(api.Output(), `"msg":"api stopped: connections drained"`) {
		t.Fatalf("api: exit %d, output:\n%s", api.ExitCode(), api.Output())
	}
	if !sched.Terminate(time.Minute) || sched.ExitCode() != 0 || !strings.Contains(sched.Output(), `"msg":"scheduler stopped"`) {
		t.Fatalf("scheduler: exit %d, output:\n%s", sched.ExitCode(), sched.Output())
	}
}

// A task that cannot finish within SHUTDOWN_TIMEOUT goes back to its queue
// at once (not after a lease expires): a worker stopped while hashing a big
// file gives its task back, and the next worker harvests the file once.
func TestWorkerStopGivesBackALongTask(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "big"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk used, but every byte is read and hashed.
	f, err := os.Create(filepath.Join(root, "big", "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(768 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p.db.Create(&models.Location{ID: "fs", Kind: "filesystem", Name: "fs", Config: models.MustJSON(map[string]string{"path": root})})
	ctr := models.Container{ID: models.ContainerID("fs", "big"), LocationID: "fs", Name: "big"}
	p.db.Create(&ctr)
	req := p.startJob("fs", ctr.ID)
	w := testproc.Start(t, "worker", p.env("SHUTDOWN_TIMEOUT=1", "LOG_LEVEL=info"))
	insp := asynq.NewInspector(p.opt)
	defer insp.Close()
	stage := (queue.Names{Namespace: p.ns}).Stage(queue.PriorityDefault)
	deadline := time.Now().Add(time.Minute)
	for {
		if info, err := insp.GetQueueInfo(stage); err == nil && info.Active == 1 {
			break
		}
		if time.Now().After(deadline) || w.Exited() {
			t.Fatalf("the item task never ran:\n%s", w.Output())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !w.Terminate(time.Minute) { // a hang guard: the give-back is read from its report below
		t.Fatal("the worker did not stop")
	}
	if !regexp.MustCompile(`"msg":"worker stopped","finished":\d+,"requeued":1,`).MatchString(w.Output()) {
		if p.harvestEnds(req) == 1 {
			t.Skip("this machine hashed 768 MiB within the shutdown timeout; the give-back path was not reached")
		}
		t.Fatalf("worker output:\n%s", w.Output())
	}
	info, err := insp.GetQueueInfo(stage)
	if err != nil || info.Active != 0 || info.Pending != 1 || info.Retry != 0 {
		t.Fatalf("after the stop the task should wait in its queue, not retried: %+v %v", info, err)
	}
	testproc.Start(t, "worker", p.env())
	deadline = time.Now().Add(time.Minute)
	for p.harvestEnds(req) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the task given back was not harvested")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var job models.Job
	p.db.Where("request_id = ?", req).Take(&job)
	if job.IndexedCount != 1 || job.ErrorCount != 0 || p.harvestEnds(req) != 1 {
		t.Fatalf("job %+v, %d harvestend", job, p.harvestEnds(req))
	}
}
