package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/internal/testredis"
	"github.com/metaharvest/metaharvest/models"
)

type nop struct{}

func (nop) Extract(context.Context, *extractors.Input) (*extractors.Result, error) {
	return &extractors.Result{}, nil
}

// registry: the base extractors, an enabled one, one disabled by default,
// one needing a tool that is not installed, one not implemented, and one
// disabled by default that needs the disabled one.
func registry(t *testing.T) *extractors.Registry {
	reg := extractors.NewRegistry()
	for _, n := range []string{"store", "mime_type", "hashes"} {
		info, _ := extractors.Default.Get(n)
		reg.MustRegister(info)
	}
	mk := func(name string, def bool, tools ...string) extractors.Info {
		return extractors.Info{Name: name, Family: extractors.FamilyTechnical, DisplayName: name, Version: "1", Implemented: true, DefaultEnabled: def,
			Tools: tools, New: func(extractors.Env) (extractors.Extractor, error) { return nop{}, nil }}
	}
	reg.MustRegister(mk("alpha", true))
	reg.MustRegister(mk("beta", false))
	reg.MustRegister(mk("gamma", true, "no-such-tool-installed-here"))
	reg.MustRegister(extractors.Info{Name: "delta", Family: extractors.FamilyTechnical, DisplayName: "delta", Version: "1"})
	reader := mk("reader", false)
	reader.Needs = []string{"beta"}
	reg.MustRegister(reader)
	return reg
}

func newStarter(t *testing.T) (*Starter, models.Container, asynq.RedisConnOpt) {
	db := testdb.New(t)
	opt, _ := queue.RedisOpt(testredis.URL())
	client := asynq.NewClient(opt)
	t.Cleanup(func() { client.Close() })
	s := &Starter{DB: db, Queue: client, Names: queue.Names{Namespace: testredis.Namespace(t)}, Registry: registry(t)}
	db.Create(&models.Location{ID: "l", Kind: "filesystem", Name: "l", Config: models.JSON(`{"path":"/x"}`)})
	db.Create(&models.ExtractorProfile{ID: "p1", Name: "only-beta", Extractors: models.Strings{"beta"}})
	ctr := models.Container{ID: "c", LocationID: "l", Name: "c", ProfileID: "p1"}
	db.Create(&ctr)
	db.Create(&models.Container{ID: "c2", LocationID: "l", Name: "c2"})
	return s, ctr, opt
}

func status(err error) int {
	if e, ok := apperr.As(err); ok {
		return e.Status
	}
	return 0
}

func TestResolveRules(t *testing.T) {
	t.Parallel()
	s, _, _ := newStarter(t)
	ctx := context.Background()
	cases := []struct {
		name      string
		requested []string
		profile   string
		override  bool
		want      string
		status    int
	}{
		{"requested enabled", []string{"alpha"}, "default", false, "[store mime_type alpha]", 0},
		{"requested disabled is dropped", []string{"alpha", "beta"}, "default", false, "[store mime_type alpha]", 0},
		{"override runs disabled", []string{"beta"}, "default", true, "[store mime_type beta]", 0},
		{"unknown name", []string{"alpha", "zeta"}, "default", false, "", http.StatusBadRequest},
		// Issue 9: names that exist but cannot run here are accepted (each
		// item records "not available"), not 400 "not configured".
		{"tool missing: accepted", []string{"gamma"}, "default", false, "[store mime_type gamma]", 0},
		{"not implemented, disabled: dropped", []string{"delta"}, "default", false, "[store mime_type]", 0},
		{"not implemented with override: accepted", []string{"delta"}, "default", true, "[store mime_type delta]", 0},
		{"alias of a base extractor", []string{"stow", "alpha"}, "default", false, "[store mime_type alpha]", 0},
		{"provider extractor without counterpart", []string{"gms2t", "gmlogos"}, "default", true, "[store mime_type gmlogos gms2t]", 0},
		{"an alias whose target is not registered here", []string{"gm_faces"}, "default", true, "", http.StatusBadRequest},
		{"default profile: every enabled, available one", nil, "default", false, "[store mime_type alpha hashes]", 0},
		{"profile list, disabled dropped", nil, "p1", false, "[store mime_type]", 0},
		{"profile list with override", nil, "p1", true, "[store mime_type beta]", 0},
		{"unknown profile", nil, "nope", false, "", http.StatusBadRequest},
		// Issue 23: what a selected extractor needs comes with it, once,
		// even when it is disabled.
		{"a need comes with its reader", []string{"reader"}, "default", true, "[store mime_type beta reader]", 0},
		{"a need asked for too runs once", []string{"beta", "reader", "beta"}, "default", true, "[store mime_type beta reader]", 0},
	}
	for _, c := range cases {
		got, err := s.Resolve(ctx, c.requested, c.profile, c.override)
		if c.status != 0 {
			if status(err) != c.status {
				t.Errorf("%s: err %v, want status %d", c.name, err, c.status)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("%s: %v %v, want %s", c.name, got, err, c.want)
		}
	}
	// A settings row wins over the registry default.
	s.DB.Create(&models.ExtractorSetting{Name: "beta", Enabled: true})
	s.DB.Create(&models.ExtractorSetting{Name: "alpha", Enabled: false})
	if got, _ := s.Resolve(ctx, nil, "default", false); fmt.Sprint(got) != "[store mime_type beta hashes]" {
		t.Fatalf("after settings: %v", got)
	}
}

func TestStartRecordsJobAndEnqueues(t *testing.T) {
	t.Parallel()
	s, ctr, opt := newStarter(t)
	ctx := context.Background()
	// Without extractors the container's profile is used.
	id, err := s.Start(ctx, Spec{LocationID: "l", ContainerID: ctr.ID, Priority: 0, Force: true, OverrideExtractors: true})
	if err != nil {
		t.Fatal(err)
	}
	var job models.Job
	s.DB.Where("request_id = ?", id).Take(&job)
	var opts Options
	json.Unmarshal(job.Options, &opts)
	if job.ProfileID != "p1" || fmt.Sprint(job.Extractors) != "[store mime_type beta]" || job.Priority != 5 || !opts.Force || job.WalkComplete {
		t.Fatalf("job: %+v %+v", job, opts)
	}
	// Priority 12 is clamped to 10; explicit extractors leave profile_id empty.
	id2, err := s.Start(ctx, Spec{LocationID: "l", ContainerID: "c2", Priority: 12, Extractors: []string{"alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	var job2 models.Job
	s.DB.Where("request_id = ?", id2).Take(&job2)
	if job2.Priority != 10 || job2.ProfileID != "" {
		t.Fatalf("job2: %+v", job2)
	}
	info, err := asynq.NewInspector(opt).GetQueueInfo(s.Names.Walk())
	if err != nil || info.Pending != 2 {
		t.Fatalf("walk queue: %+v %v", info, err)
	}
	// The same deterministic request id twice: one job, one task (walking
	// c2 again while job2 walks it takes ignore_recently_walked).
	for i := 0; i < 2; i++ {
		if _, err := s.Start(ctx, Spec{RequestID: "fixed", LocationID: "l", ContainerID: "c2", IgnoreRecentlyWalked: true}); err != nil {
			t.Fatal(err)
		}
	}
	info, _ = asynq.NewInspector(opt).GetQueueInfo(s.Names.Walk())
	if info.Pending != 3 {
		t.Fatalf("duplicate start enqueued twice: %d pending", info.Pending)
	}
	for _, bad := range []Spec{
		{LocationID: "nope", ContainerID: "c"},
		{LocationID: "l", ContainerID: "nope"},
		{LocationID: "l", ItemID: "nope"},
		{LocationID: "l"},
		{LocationID: "l", ContainerID: "c", ItemID: "x"},
	} {
		if _, err := s.Start(ctx, bad); status(err) == 0 {
			t.Errorf("%+v: accepted (%v)", bad, err)
		}
	}
	// A single item: the job is walked already and the item task goes to
	// its priority's queue.
	now := time.Now()
	s.DB.Create(&models.Item{ID: "i1", LocationID: "l", ContainerID: "c2", Path: "a", Name: "a", LastModified: &now, Metadata: models.JSON("{}")})
	id3, err := s.Start(ctx, Spec{LocationID: "l", ItemID: "i1", Priority: 2})
	if err != nil {
		t.Fatal(err)
	}
	var job3 models.Job
	s.DB.Where("request_id = ?", id3).Take(&job3)
	if !job3.WalkComplete || job3.EnqueuedCount != 1 || job3.ContainerID != "c2" {
		t.Fatalf("item job: %+v", job3)
	}
	if info, _ := asynq.NewInspector(opt).GetQueueInfo(s.Names.Stage(2)); info == nil || info.Pending != 1 {
		t.Fatalf("stage02: %+v", info)
	}
}

// A container walked less than a minute ago is not walked again: the job is
// recorded complete with the reason, and nothing is enqueued (issue 9: the
// request answered 202 and silently did nothing).
func TestStartSkipsRecentlyWalkedContainer(t *testing.T) {
	t.Parallel()
	s, _, opt := newStarter(t)
	ctx := context.Background()
	walked := time.Now().Add(-10 * time.Second)
	s.DB.Model(&models.Container{}).Where("id = ?", "c2").Updates(map[string]any{"last_walked": walked, "request_id": "earlier"})

	st, err := s.StartJob(ctx, Spec{LocationID: "l", ContainerID: "c2"})
	if err != nil || st.Skipped != SkipRecentlyWalked || st.RequestID == "" {
		t.Fatalf("started %+v, %v", st, err)
	}
	var job models.Job
	s.DB.Where("request_id = ?", st.RequestID).Take(&job)
	if !job.WalkComplete || job.EnqueuedCount != 0 {
		t.Fatalf("skipped job %+v", job)
	}
	var acts []models.Activity
	s.DB.Where("request_id = ?", st.RequestID).Find(&acts)
	if len(acts) != 1 || acts[0].Kind != models.ActivityWalk || acts[0].Source != "skipped: recently_walked" {
		t.Fatalf("activities %+v", acts)
	}
	if info, err := asynq.NewInspector(opt).GetQueueInfo(s.Names.Walk()); err == nil && info.Pending != 0 {
		t.Fatalf("a skipped job enqueued a walk: %+v", info)
	}

	// ignore_recently_walked walks anyway.
	st, err = s.StartJob(ctx, Spec{LocationID: "l", ContainerID: "c2", IgnoreRecentlyWalked: true})
	if err != nil || st.Skipped != "" {
		t.Fatalf("ignore_recently_walked: %+v %v", st, err)
	}
	walking := st.RequestID
	s.DB.Model(&models.Container{}).Where("id = ?", "c2").Update("last_walked", time.Now().Add(-RecentWalkWindow-time.Second))
	skipped := func(what string, want bool) {
		t.Helper()
		st, err := s.StartJob(ctx, Spec{LocationID: "l", ContainerID: "c2"})
		if err != nil || (st.Skipped == SkipRecentlyWalked) != want {
			t.Fatalf("%s: started %+v, %v; want skipped %v", what, st, err, want)
		}
	}
	// A walk a minute old, but that harvest still walks; then it harvests
	// the items it listed; then it finished less than a minute ago.
	skipped("while the last walking harvest walks", true)
	s.DB.Model(&models.Job{}).Where("request_id = ?", walking).Updates(map[string]any{"walk_complete": true, "enqueued_count": 1})
	skipped("while the last walking harvest harvests", true)
	s.DB.Model(&models.Job{}).Where("request_id = ?", walking).Update("enqueued_count", 0)
	skipped("the last walking harvest finished just now", true)
	// A request of a given id skipped now (a live harvest's) stays
	// skipped when started again once the walk is over.
	live := Spec{RequestID: "live-slot", LocationID: "l", ContainerID: "c2"}
	if st, err := s.StartJob(ctx, live); err != nil || st.Skipped != SkipRecentlyWalked {
		t.Fatalf("live harvest during a walk: %+v %v", st, err)
	}
	// Finished a minute ago: walked, except the request skipped before.
	s.DB.Model(&models.Job{}).Where("request_id = ?", walking).Update("updated", time.Now().Add(-RecentWalkWindow-time.Second))
	if st, err := s.StartJob(ctx, live); err != nil || st.Skipped != SkipRecentlyWalked {
		t.Fatalf("the skipped live harvest started again: %+v %v", st, err)
	}
	skipped("the last walking harvest finished over a minute ago", false)
}
