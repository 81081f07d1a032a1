package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/scheduler"
	"github.com/metaharvest/metaharvest/storage"
)

func TestLocationKinds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var want []storage.KindInfo
	for _, k := range storage.Kinds() {
		if k.Name != storage.KindUploadStore {
			want = append(want, k)
		}
	}
	_, reader := e.userWithScopes("kinds@example.com", "locations:read")
	for _, tok := range []string{e.adminToken, reader} {
		var got struct {
			LocationKinds []storage.KindInfo `json:"location_kinds"`
		}
		e.do("GET", "/api/data/v3/location-kinds", tok, nil).status(200).decode(&got)
		if !reflect.DeepEqual(got.LocationKinds, want) {
			t.Fatalf("kinds %+v\nwant %+v", got.LocationKinds, want)
		}
	}
	// The fields clients build their forms from.
	var s3 storage.KindInfo
	for _, k := range want {
		if k.Name == storage.KindS3 {
			s3 = k
		}
	}
	secret := map[string]bool{}
	for _, f := range s3.Fields {
		secret[f.Field] = f.IsSecret
	}
	if len(want) != 2 || want[0].Name != "filesystem" || !secret["secret_access_key"] || secret["access_key_id"] {
		t.Fatalf("kinds %+v", want)
	}
}

// Every extractor profile route has its h2 alias with the same scope, and
// the alias answers exactly like the original.
func TestExtractorProfilesAlias(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	routes := map[string]string{}
	for _, rt := range e.srv.Routes() {
		routes[rt.Method+" "+rt.Path] = rt.Scope
	}
	n := 0
	for key, scope := range routes {
		method, path, _ := strings.Cut(key, " ")
		if path != profilesPath && !strings.HasPrefix(path, profilesPath+"/") {
			continue
		}
		n++
		alias := method + " " + profilesAliasPath + strings.TrimPrefix(path, profilesPath)
		if got, ok := routes[alias]; !ok || got != scope {
			t.Errorf("%s: alias %s has scope %q (registered %v), want %q", key, alias, got, ok, scope)
		}
	}
	if n != 5 {
		t.Fatalf("%d extractor profile routes, want 5", n)
	}

	// same sends one request to both paths and requires identical answers
	// (but for updated_at, which a second update moves on).
	same := func(method, sub string, body any) *response {
		t.Helper()
		a := e.do(method, profilesPath+sub, e.adminToken, body)
		b := e.do(method, profilesAliasPath+sub, e.adminToken, body)
		if a.Code != b.Code || !bytes.Equal(withoutUpdatedAt(t, a.Body), withoutUpdatedAt(t, b.Body)) {
			t.Fatalf("%s %s: original %d %s\nalias %d %s", method, sub, a.Code, a.Body, b.Code, b.Body)
		}
		return a
	}
	created := e.do("POST", profilesAliasPath, e.adminToken, map[string]any{"name": "fast", "extractors": []string{}}).status(201).json()
	id := created["id"].(string)
	same("GET", "", nil).status(200)
	same("GET", "/"+id, nil).status(200)
	same("GET", "/nope", nil).status(404)
	same("POST", "", map[string]any{"name": "fast"}).status(409)
	same("POST", "", map[string]any{"name": "x", "extractors": []string{"no-such-extractor"}}).status(400)
	same("PUT", "/"+id, map[string]any{"name": "faster", "extractors": []string{}}).status(200)
	same("PUT", "/default", map[string]any{"name": "renamed"}).status(409)
	same("DELETE", "/default", nil).status(409)
	got := e.do("GET", profilesPath+"/"+id, e.adminToken, nil).status(200).json()
	if got["name"] != "faster" {
		t.Fatalf("update through the alias not seen by the original: %v", got)
	}
	e.do("DELETE", profilesAliasPath+"/"+id, e.adminToken, nil).status(200)
	e.do("GET", profilesPath+"/"+id, e.adminToken, nil).status(404)
	var audits int64
	e.db.Model(&models.AuditEvent{}).Where("target_kind = 'extractorprofile' AND target_id = ?", id).Count(&audits)
	if audits != 4 {
		t.Fatalf("audit events: %d, want create, two updates (one per path), delete", audits)
	}

	// Scopes are those of the original.
	_, reader := e.userWithScopes("alias-reader@example.com", "extractors:read")
	e.do("GET", profilesAliasPath, reader, nil).status(200)
	if r := e.do("POST", profilesAliasPath, reader, map[string]any{"name": "y"}); r.Code != 403 || r.errCode() != "missing_scope" {
		t.Fatalf("alias without extractors:write: %d %s", r.Code, r.Body)
	}
}

func TestFeatureSwitchRoundTripAuditAndScheduler(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const put = "/api/data/features/disabled_live_harvesting"
	_, reader := e.userWithScopes("feat-reader@example.com", "summary:read")
	features := func(tok string) map[string]bool {
		t.Helper()
		var body struct {
			Features []featureJSON `json:"features"`
		}
		e.do("GET", "/api/data/features", tok, nil).status(200).decode(&body)
		out := map[string]bool{}
		for _, f := range body.Features {
			out[f.Name] = f.Enabled
		}
		return out
	}
	if got := features(reader); !reflect.DeepEqual(got, map[string]bool{"disabled_live_harvesting": false}) {
		t.Fatalf("features before any switch: %v", got)
	}

	// A container due for a live harvest, and a scheduler on the same
	// database and queue namespace.
	w := newActWorld(e)
	w.location("loc-live", nil, nil)
	sched := scheduler.New(scheduler.Deps{Config: e.cfg, DB: e.db, Queue: e.queue})
	now := time.Now()

	var f featureJSON
	e.do("PUT", put, e.adminToken, map[string]any{"enabled": true}).status(200).decode(&f)
	if f != (featureJSON{Name: "disabled_live_harvesting", Enabled: true}) {
		t.Fatalf("put: %+v", f)
	}
	if !features(reader)["disabled_live_harvesting"] {
		t.Fatal("switch not on after put")
	}
	var row models.Setting
	if err := e.db.Where("key = ?", "feature:disabled_live_harvesting").Take(&row).Error; err != nil || row.Value != "true" {
		t.Fatalf("settings row %+v, %v", row, err)
	}
	if n, err := sched.Plan(context.Background(), now); err != nil || n != 0 {
		t.Fatalf("live harvesting disabled: scheduler planned %d, %v", n, err)
	}

	e.do("PUT", put, e.adminToken, map[string]any{"enabled": false}).status(200).decode(&f)
	if f.Enabled || features(reader)["disabled_live_harvesting"] {
		t.Fatalf("switch still on: %+v", f)
	}
	if n, err := sched.Plan(context.Background(), now); err != nil || n != 1 {
		t.Fatalf("live harvesting enabled again: scheduler planned %d, %v", n, err)
	}

	var events []models.AuditEvent
	e.db.Where("target_kind = 'feature'").Order("time, id").Find(&events)
	adminID := e.adminUserID()
	if len(events) != 2 || events[0].ActionKey != "enable" || events[1].ActionKey != "disable" {
		t.Fatalf("audit events %+v", events)
	}
	for _, ev := range events {
		if ev.TargetID != "disabled_live_harvesting" || ev.UserID != adminID {
			t.Fatalf("audit event %+v", ev)
		}
	}
	filters := e.do("GET", "/api/data/audit?target_kind=feature", e.adminToken, nil).status(200).json()
	if filters["total"] != float64(2) {
		t.Fatalf("audit list: %v", filters)
	}

	// Refusals.
	if r := e.do("PUT", "/api/data/features/no_such_feature", e.adminToken, map[string]any{"enabled": true}); r.Code != 404 {
		t.Fatalf("unknown feature: %d %s", r.Code, r.Body)
	}
	for body, field := range map[string]string{`{}`: "enabled", `{"enabled":"yes"}`: "enabled", `{"enabled":true,"x":1}`: "x"} {
		if r := e.do("PUT", put, e.adminToken, body); r.Code != 400 || r.field(field) == "" {
			t.Fatalf("body %s: %d %s", body, r.Code, r.Body)
		}
	}
	if r := e.do("PUT", put, e.adminToken, ""); r.Code != 400 {
		t.Fatalf("empty body: %d %s", r.Code, r.Body)
	}
	if r := e.do("PUT", put, reader, map[string]any{"enabled": true}); r.Code != 403 {
		t.Fatalf("without features:write: %d %s", r.Code, r.Body)
	}
	// A body without a Content-Type is JSON too.
	e.doRaw("PUT", put, e.adminToken, []byte(`{"enabled":false}`), "").status(200)
}

func (e *env) adminUserID() string {
	e.t.Helper()
	var u models.User
	if err := e.db.Where("lower(email) = ?", adminEmail).Take(&u).Error; err != nil {
		e.t.Fatal(err)
	}
	return u.ID
}

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

// withoutUpdatedAt drops a top-level updated_at from a JSON object, keeping
// everything else byte for byte.
func withoutUpdatedAt(t *testing.T, body []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %s", body)
	}
	if _, ok := m["updated_at"]; !ok {
		return body
	}
	delete(m, "updated_at")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
