package api

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/scheduler"
)

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
