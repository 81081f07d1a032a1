package api

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/metaharvest/metaharvest/extractors/families" // the api knows the extractors the binary links
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
)

type extractorListBody struct {
	Extractors []extractorJSON `json:"extractors"`
}

func (b extractorListBody) find(t *testing.T, name string) extractorJSON {
	t.Helper()
	for _, x := range b.Extractors {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("extractor %s not listed", name)
	return extractorJSON{}
}

func extSetting(t *testing.T, e *env, name string) (models.ExtractorSetting, bool) {
	t.Helper()
	var rows []models.ExtractorSetting
	if err := e.db.Where("name = ?", name).Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return models.ExtractorSetting{}, false
	}
	return rows[0], true
}

func extAuditCount(t *testing.T, e *env, kind, action, target string) int64 {
	t.Helper()
	var n int64
	q := e.db.Model(&models.AuditEvent{}).Where("target_kind = ? AND action_key = ?", kind, action)
	if target != "" {
		q = q.Where("target_id = ?", target)
	}
	if err := q.Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestExtractorSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.adminToken
	ctx := context.Background()

	var list extractorListBody
	e.do("GET", "/api/data/extractors", tok, nil).status(200).decode(&list)
	all := e.srv.Extractors.All()
	if len(list.Extractors) != len(all) || len(all) == 0 {
		t.Fatalf("%d extractors listed, registry has %d", len(list.Extractors), len(all))
	}
	for i, info := range all {
		x := list.Extractors[i]
		ok, reason := e.srv.Extractors.Available(info.Name)
		if x.Name != info.Name || x.DisplayName != info.DisplayName || x.Version != info.Version ||
			x.Enabled != info.DefaultEnabled || x.Available != ok || x.Reason != reason || len(x.Tools) != len(info.Tools) ||
			x.Family != string(info.Family) || x.FamilyName == "" || x.FamilyName != info.Family.Name() {
			t.Errorf("listed %+v for %+v", x, info)
		}
	}
	if x := list.find(t, "exiv2"); x.Family != "images" || x.FamilyName != "Images" {
		t.Errorf("exiv2 family %q %q", x.Family, x.FamilyName)
	}
	// Settings are listed as declared, with kind and bounds; a secret's
	// default is never shown, nor any value.
	pages := list.find(t, "document_pages").Settings
	if len(pages) != 2 || pages[0].Env != "DOCUMENT_PAGES_MAX_PAGES" || pages[0].Kind != "integer" || pages[0].Default != "50" ||
		pages[0].Min == nil || *pages[0].Min != 1 || pages[0].Max == nil || *pages[0].Max != 1000 ||
		pages[0].Want != "a whole number from 1 to 1000" {
		t.Errorf("document_pages settings %+v", pages)
	}
	for _, st := range list.find(t, "tags").Settings {
		if st.Name == "key" && (!st.Secret || !st.Required || st.Default != "" || st.Kind != "text") {
			t.Errorf("tags key %+v", st)
		}
	}
	if st := list.find(t, "hashes").Settings; st == nil || len(st) != 0 {
		t.Errorf("hashes settings %v, want []", st)
	}
	if h := list.find(t, "hashes"); !h.Enabled || !h.Available || h.Reason != "" || h.Tools == nil {
		t.Fatalf("hashes %+v", h)
	}
	// tags is off by default, and cannot run without its provider's settings.
	if x := list.find(t, "tags"); x.Enabled || x.Available || !strings.Contains(x.Reason, "recognition provider setting") ||
		!slices.Equal(x.Tools, []string{"ffmpeg", "ffprobe"}) {
		t.Fatalf("tags %+v", x)
	}

	put := func(name string, on bool) extractorJSON {
		t.Helper()
		var x extractorJSON
		e.do("PUT", "/api/data/extractors/"+name, tok, map[string]any{"enabled": on}).status(200).decode(&x)
		if x.Name != name || x.Enabled != on {
			t.Fatalf("PUT %s %v -> %+v", name, on, x)
		}
		return x
	}
	enabled := func(name string) bool {
		t.Helper()
		set, err := jobs.EnabledSet(ctx, e.db, e.srv.Extractors)
		if err != nil {
			t.Fatal(err)
		}
		return set[name]
	}

	// Disable an extractor enabled by default: it never went disabled ->
	// enabled, so enabled_at stays empty.
	put("hashes", false)
	if enabled("hashes") {
		t.Fatal("hashes still enabled in EnabledSet")
	}
	if st, ok := extSetting(t, e, "hashes"); !ok || st.Enabled || st.EnabledAt != nil {
		t.Fatalf("hashes setting %+v", st)
	}
	e.do("GET", "/api/data/extractors", tok, nil).status(200).decode(&list)
	if list.find(t, "hashes").Enabled {
		t.Fatal("list still shows hashes enabled")
	}
	// Re-enabling records when; enabling again keeps that time.
	before := time.Now().Add(-time.Minute)
	put("hashes", true)
	st, _ := extSetting(t, e, "hashes")
	if !enabled("hashes") || st.EnabledAt == nil || st.EnabledAt.Before(before) {
		t.Fatalf("hashes re-enabled: %+v", st)
	}
	first := *st.EnabledAt
	put("hashes", true)
	if st, _ := extSetting(t, e, "hashes"); !st.EnabledAt.Equal(first) {
		t.Fatalf("enabled_at moved on a no-op enable: %v -> %v", first, st.EnabledAt)
	}
	// Enabling an extractor that is off by default (and not available here).
	if x := put("tags", true); x.Available || x.Reason == "" {
		t.Fatalf("tags %+v", x)
	}
	if st, _ := extSetting(t, e, "tags"); !enabled("tags") || st.EnabledAt == nil {
		t.Fatalf("tags setting %+v", st)
	}
	// Enabling an extractor already enabled by default: no switch, no time.
	put("store", true)
	if st, _ := extSetting(t, e, "store"); st.EnabledAt != nil || !st.Enabled {
		t.Fatalf("store setting %+v", st)
	}
	if n := extAuditCount(t, e, "extractor", "disable", "hashes"); n != 1 {
		t.Fatalf("disable audit events: %d", n)
	}
	if n := extAuditCount(t, e, "extractor", "enable", "hashes"); n != 2 {
		t.Fatalf("enable audit events: %d", n)
	}

	// The job starter follows the settings: a profile naming hashes runs it
	// only while enabled.
	prof := e.do("POST", "/api/data/extractor-profiles", tok, map[string]any{"name": "h", "extractors": []string{"hashes"}}).status(201).json()
	resolve := func() []string {
		t.Helper()
		names, err := e.srv.jobs.Resolve(ctx, nil, prof["id"].(string), false)
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	if got := resolve(); !slices.Contains(got, "hashes") {
		t.Fatalf("resolve with hashes enabled: %v", got)
	}
	put("hashes", false)
	if got := resolve(); slices.Contains(got, "hashes") {
		t.Fatalf("resolve with hashes disabled: %v", got)
	}

	// Errors.
	if r := e.do("PUT", "/api/data/extractors/bogus", tok, map[string]any{"enabled": true}); r.Code != 404 || r.errCode() != "not_found" {
		t.Fatalf("unknown extractor: %d %s", r.Code, r.Body)
	}
	for _, body := range []any{map[string]any{}, map[string]any{"enabled": "yes"}, map[string]any{"enabled": true, "name": "x"}, `{"enabled":`, ""} {
		if r := e.do("PUT", "/api/data/extractors/hashes", tok, body); r.Code != 400 {
			t.Errorf("PUT body %v: %d, want 400", body, r.Code)
		}
	}
	if r := e.do("PUT", "/api/data/extractors/hashes", tok, map[string]any{}); r.field("enabled") != "is required" {
		t.Fatalf("missing enabled: %s", r.Body)
	}
	// Readers may read but not write.
	_, reader := e.userWithScopes("reader@example.com", "extractors:read")
	e.do("GET", "/api/data/extractors", reader, nil).status(200)
	e.do("PUT", "/api/data/extractors/hashes", reader, map[string]any{"enabled": true}).status(403)
}

func TestExtractorProfiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.adminToken
	const base = "/api/data/extractor-profiles"

	var list struct {
		Profiles []profileJSON `json:"profiles"`
	}
	e.do("GET", base, tok, nil).status(200).decode(&list)
	if len(list.Profiles) != 1 || list.Profiles[0].ID != "default" || !list.Profiles[0].Builtin ||
		list.Profiles[0].Extractors == nil || len(list.Profiles[0].Extractors) != 0 {
		t.Fatalf("profiles %+v", list.Profiles)
	}

	var p profileJSON
	e.do("POST", base, tok, map[string]any{"name": "  video ", "extractors": []string{"mediainfo", "hashes", "hashes"}}).status(201).decode(&p)
	if p.ID == "" || p.Name != "video" || !slices.Equal(p.Extractors, []string{"hashes", "mediainfo"}) || p.Builtin || p.CreatedAt.IsZero() {
		t.Fatalf("created %+v", p)
	}
	var empty profileJSON
	e.do("POST", base, tok, map[string]any{"name": "nothing"}).status(201).decode(&empty)
	if empty.Extractors == nil || len(empty.Extractors) != 0 {
		t.Fatalf("profile without extractors %+v", empty)
	}
	if r := e.do("POST", base, tok, map[string]any{"name": "VIDEO"}); r.Code != 409 || r.errCode() != "name_taken" {
		t.Fatalf("duplicate name: %d %s", r.Code, r.Body)
	}
	r := e.do("POST", base, tok, map[string]any{"name": "x", "extractors": []string{"bogus", "hashes", "nope"}})
	if r.Code != 400 || !strings.Contains(r.field("extractors"), "bogus") || !strings.Contains(r.field("extractors"), "nope") ||
		strings.Contains(r.field("extractors"), "hashes") {
		t.Fatalf("unknown extractors: %d %s", r.Code, r.Body)
	}
	for _, body := range []any{map[string]any{"extractors": []string{}}, map[string]any{"name": " "},
		map[string]any{"name": "y", "builtin": true}, map[string]any{"name": "y", "extractors": "hashes"}} {
		if r := e.do("POST", base, tok, body); r.Code != 400 {
			t.Errorf("POST %v: %d, want 400", body, r.Code)
		}
	}

	var got profileJSON
	e.do("GET", base+"/"+p.ID, tok, nil).status(200).decode(&got)
	if got.ID != p.ID || got.Name != "video" || !slices.Equal(got.Extractors, p.Extractors) {
		t.Fatalf("get %+v", got)
	}
	e.do("GET", base+"/nope", tok, nil).status(404)

	var upd profileJSON
	e.do("PUT", base+"/"+p.ID, tok, map[string]any{"name": "video2", "extractors": []string{"exiv2"}}).status(200).decode(&upd)
	if upd.Name != "video2" || !slices.Equal(upd.Extractors, []string{"exiv2"}) || upd.UpdatedAt.Before(p.UpdatedAt) {
		t.Fatalf("updated %+v", upd)
	}
	if r := e.do("PUT", base+"/"+p.ID, tok, map[string]any{"name": "Nothing"}); r.Code != 409 || r.errCode() != "name_taken" {
		t.Fatalf("rename onto another: %d %s", r.Code, r.Body)
	}
	e.do("PUT", base+"/"+p.ID, tok, map[string]any{"name": "z", "extractors": []string{"bogus"}}).status(400)
	e.do("PUT", base+"/nope", tok, map[string]any{"name": "z"}).status(404)

	// The built-in profile: its list may change, its name and existence may not.
	var def profileJSON
	e.do("PUT", base+"/default", tok, map[string]any{"name": "default", "extractors": []string{"hashes"}}).status(200).decode(&def)
	if !def.Builtin || !slices.Equal(def.Extractors, []string{"hashes"}) {
		t.Fatalf("default %+v", def)
	}
	if r := e.do("PUT", base+"/default", tok, map[string]any{"name": "renamed"}); r.Code != 409 || r.errCode() != "builtin_profile" {
		t.Fatalf("rename default: %d %s", r.Code, r.Body)
	}
	if r := e.do("DELETE", base+"/default", tok, nil); r.Code != 409 || r.errCode() != "builtin_profile" {
		t.Fatalf("delete default: %d %s", r.Code, r.Body)
	}
	e.do("PUT", base+"/default", tok, map[string]any{"name": "default", "extractors": []string{}}).status(200)

	// A profile a container uses cannot be deleted.
	w := newActWorld(e)
	_, ctr := w.location("loc-p", nil, nil)
	if err := e.db.Model(&models.Container{}).Where("id = ?", ctr).Update("profile_id", p.ID).Error; err != nil {
		t.Fatal(err)
	}
	if r := e.do("DELETE", base+"/"+p.ID, tok, nil); r.Code != 409 || r.errCode() != "profile_in_use" {
		t.Fatalf("delete in use: %d %s", r.Code, r.Body)
	}
	if err := e.db.Model(&models.Container{}).Where("id = ?", ctr).Update("profile_id", "").Error; err != nil {
		t.Fatal(err)
	}
	del := e.do("DELETE", base+"/"+p.ID, tok, nil).status(200).json()
	if del["deleted"] != true || del["id"] != p.ID {
		t.Fatalf("delete %v", del)
	}
	e.do("GET", base+"/"+p.ID, tok, nil).status(404)
	e.do("DELETE", base+"/"+p.ID, tok, nil).status(404)

	e.do("GET", base, tok, nil).status(200).decode(&list)
	var names []string
	for _, x := range list.Profiles {
		names = append(names, x.Name)
	}
	if !slices.Equal(names, []string{"default", "nothing"}) {
		t.Fatalf("profiles after delete %v", names)
	}
	for action, n := range map[string]int64{"create": 1, "update": 1, "delete": 1} {
		if got := extAuditCount(t, e, "extractorprofile", action, p.ID); got != n {
			t.Errorf("audit extractorprofile/%s: %d, want %d", action, got, n)
		}
	}
	_, reader := e.userWithScopes("profile-reader@example.com", "extractors:read")
	e.do("GET", base+"/default", reader, nil).status(200)
	e.do("POST", base, reader, map[string]any{"name": "r"}).status(403)
}
