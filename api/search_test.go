package api

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
	_ "github.com/metaharvest/metaharvest/search/meili"
	_ "github.com/metaharvest/metaharvest/search/postgres"
)

// searchEnv is an env whose api has the Postgres search engine, with a
// small corpus indexed through the outbox like the workers do: two public
// files and one in a location restricted to the group "Secret".
type searchEnv struct {
	*env
	group string
}

func newSearchEnv(t *testing.T) *searchEnv { return newSearchEnvWith(t) }

func newSearchEnvWith(t *testing.T, tweak ...func(*config.Config)) *searchEnv {
	e := newEnv(t, tweak...)
	eng, err := search.Open(search.Config{DB: e.db})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Search = eng
	se := &searchEnv{env: e}
	se.group = e.do("POST", "/api/data/v3/groups", e.adminToken, map[string]any{"name": "Secret"}).status(201).json()["id"].(string)
	mk := func(locID, locName string, groups ...string) string {
		e.db.Create(&models.Location{ID: locID, Kind: "filesystem", Name: locName, Config: models.MustJSON(map[string]string{"path": "/x"})})
		for _, g := range groups {
			e.db.Create(&models.LocationGroup{LocationID: locID, GroupID: g})
		}
		ctr := models.ContainerID(locID, "media")
		e.db.Create(&models.Container{ID: ctr, LocationID: locID, Name: "media"})
		return ctr
	}
	pub := mk("pub", "Public archive")
	sec := mk("sec", "Vault", se.group)
	now := time.Now().UTC()
	items := []models.Item{
		{LocationID: "pub", ContainerID: pub, Path: "trips/holiday_video.mp4", MimeType: "video/mp4", Size: 1000,
			Metadata: models.MustJSON(map[string]any{"mediainfo": map[string]any{"duration": 12.5}, "hashes": map[string]any{"sha256": "aa"}})},
		{LocationID: "pub", ContainerID: pub, Path: "docs/budget.pdf", MimeType: "application/pdf", Size: 2000,
			Metadata: models.MustJSON(map[string]any{"hashes": map[string]any{"sha256": "bb"}})},
		{LocationID: "sec", ContainerID: sec, Path: "secret_plan.txt", MimeType: "text/plain", Size: 30,
			Metadata: models.MustJSON(map[string]any{"hashes": map[string]any{"sha256": "cc"}})},
	}
	var ids []string
	for _, it := range items {
		it.ID = models.ItemID(it.ContainerID, it.Path)
		it.Name = it.Path[strings.LastIndex(it.Path, "/")+1:]
		it.LastModified, it.LastHarvested = &now, &now
		if err := e.db.Create(&it).Error; err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	if err := search.MarkDirty(e.db, ids...); err != nil {
		t.Fatal(err)
	}
	if n, err := search.Drain(context.Background(), e.db, eng, 100); err != nil || n != 3 {
		t.Fatalf("drain: %d %v", n, err)
	}
	return se
}

func names(t *testing.T, res map[string]any) []string {
	var out []string
	for _, r := range res["results"].([]any) {
		out = append(out, fmt.Sprint(r.(map[string]any)["result"].(map[string]any)["name"]))
	}
	return out
}

func TestSearchThroughAPI(t *testing.T) {
	t.Parallel()
	e := newSearchEnv(t)
	tok := e.adminToken
	res := e.do("POST", "/api/data/search", tok, map[string]any{"query": "holiday"}).status(200).json()
	if res["total_hits"].(float64) != 1 || fmt.Sprint(names(t, res)) != "[holiday_video.mp4]" {
		t.Fatalf("query holiday: %v", res)
	}
	hit := res["results"].([]any)[0].(map[string]any)
	if score := hit["score"].(float64); score <= 0 || score > 1 {
		t.Fatalf("score %v", score)
	}
	if !strings.Contains(fmt.Sprint(hit["highlight"]), "<em>") {
		t.Fatalf("highlight %v", hit["highlight"])
	}
	all := e.do("POST", "/api/data/search", tok, map[string]any{"limit": 5000,
		"sort_fields": []map[string]any{{"field": "size", "asc": false}},
		"aggregations": map[string]any{"terms": []map[string]any{{"name": "types", "field": "mime_type"}},
			"metrics": []map[string]any{{"name": "total", "field": "size", "type": "sum"}}}}).status(200).json()
	if all["limit"].(float64) != 1000 || fmt.Sprint(names(t, all)) != "[budget.pdf holiday_video.mp4 secret_plan.txt]" {
		t.Fatalf("sorted by size desc: %v", names(t, all))
	}
	aggs := all["aggregations"].(map[string]any)
	if aggs["metrics"].(map[string]any)["total"].(float64) != 3030 {
		t.Fatalf("sum: %v", aggs)
	}
	filtered := e.do("POST", "/api/data/search", tok, map[string]any{"filters": map[string]any{
		"ranges": []map[string]any{{"field": "mediainfo.duration", "from": "10", "to": ""}}}}).status(200).json()
	if fmt.Sprint(names(t, filtered)) != "[holiday_video.mp4]" {
		t.Fatalf("range filter: %v", names(t, filtered))
	}
	for _, bad := range []map[string]any{
		{"filters": map[string]any{}},
		{"sort_fields": []map[string]any{{"field": "no.such.field"}}},
		{"limit": -1},
		{"filters": map[string]any{"terms": []map[string]any{{"field": "nope", "value": "x"}}}},
	} {
		if r := e.do("POST", "/api/data/search", tok, bad); r.Code != 400 {
			t.Errorf("%v: %d, want 400", bad, r.Code)
		}
	}
	if r := e.do("POST", "/api/data/search", tok, `{"query": 5}`); r.Code != 400 {
		t.Fatalf("wrong type: %d", r.Code)
	}
}

// Visibility is enforced by the server: a user outside the group never sees
// the restricted file, whatever they ask.
func TestSearchVisibility(t *testing.T) {
	t.Parallel()
	e := newSearchEnv(t)
	outsiderID, outsider := e.userWithScopes("out@example.com", "search:read")
	_ = outsiderID
	memberID, member := e.userWithScopes("in@example.com", "search:read")
	e.do("PUT", "/api/data/v3/users/"+memberID+"/groups/"+e.group, e.adminToken, nil).status(200)

	q := map[string]any{"filters": map[string]any{"terms": []map[string]any{{"field": "location_id", "value": "sec"}}}}
	if n := e.do("POST", "/api/data/search", outsider, q).status(200).json()["total_hits"].(float64); n != 0 {
		t.Fatalf("outsider sees %v restricted files", n)
	}
	if n := e.do("POST", "/api/data/search", outsider, map[string]any{"query": "secret"}).status(200).json()["total_hits"].(float64); n != 0 {
		t.Fatalf("outsider finds the secret by text: %v", n)
	}
	if n := e.do("POST", "/api/data/search", member, q).status(200).json()["total_hits"].(float64); n != 1 {
		t.Fatalf("member sees %v restricted files", n)
	}
	if n := e.do("POST", "/api/data/search", outsider, map[string]any{}).status(200).json()["total_hits"].(float64); n != 2 {
		t.Fatalf("outsider total %v, want 2", n)
	}
	an := e.do("GET", "/api/v3/search/analytics", outsider, nil).status(200).json()
	if strings.Contains(fmt.Sprint(an["files_by_location"]), "Vault") {
		t.Fatalf("analytics leak the restricted location: %v", an)
	}
	an = e.do("GET", "/api/v3/search/analytics", member, nil).status(200).json()
	if !strings.Contains(fmt.Sprint(an["files_by_location"]), "Vault") {
		t.Fatalf("member analytics: %v", an)
	}
}

func TestSearchEngineDownAnswers503(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The engine's database goes away after the engine was opened.
	dead, err := models.Open(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := search.Open(search.Config{DB: dead})
	if err != nil {
		t.Fatal(err)
	}
	if sqlDB, err := dead.DB(); err == nil {
		sqlDB.Close()
	}
	e.srv.Search = eng
	for _, r := range []*response{
		e.do("POST", "/api/data/search", e.adminToken, map[string]any{"query": "x"}),
		e.do("GET", "/api/v3/search/analytics", e.adminToken, nil),
	} {
		if r.Code != 503 || r.errCode() != "unavailable" {
			t.Fatalf("engine down: %d %s", r.Code, r.Body)
		}
	}
	// Meilisearch down at start: the engine opens lazily, search answers 503.
	meili, err := search.Open(search.Config{MeiliURL: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatalf("opening a Meilisearch engine while the server is down: %v", err)
	}
	e.srv.Search = meili
	if r := e.do("POST", "/api/data/search", e.adminToken, map[string]any{"query": "x"}); r.Code != 503 {
		t.Fatalf("meilisearch down: %d %s", r.Code, r.Body)
	}
	e.srv.Search = nil
	if r := e.do("POST", "/api/data/search", e.adminToken, map[string]any{}); r.Code != 503 {
		t.Fatalf("no engine: %d", r.Code)
	}
}

func TestSegmentsThroughAPI(t *testing.T) {
	t.Parallel()
	e := newSearchEnv(t)
	ctx := context.Background()
	var pubItem, secItem string
	e.db.Model(&models.Item{}).Where("location_id = 'pub' AND name = 'holiday_video.mp4'").Pluck("id", &pubItem)
	e.db.Model(&models.Item{}).Where("location_id = 'sec'").Pluck("id", &secItem)
	segs := []search.Segment{
		{ID: pubItem + "-1", ItemID: pubItem, Time: 1.5, Summary: search.SegmentSummary{OCR: []search.SegmentText{{Text: "beach sunset", Source: "tesseract"}}}},
		{ID: pubItem + "-2", ItemID: pubItem, Time: 7, Summary: search.SegmentSummary{OCR: []search.SegmentText{{Text: "airport", Source: "tesseract"}}}},
		{ID: secItem + "-1", ItemID: secItem, Time: 3, LocationGroups: []string{e.group}, Summary: search.SegmentSummary{OCR: []search.SegmentText{{Text: "beach house", Source: "tesseract"}}}},
	}
	if err := e.srv.Search.UpsertSegments(ctx, segs); err != nil {
		t.Fatal(err)
	}
	_, outsider := e.userWithScopes("seg@example.com", "segments:read")
	body := map[string]any{"query": "beach", "filters": map[string]any{"exact_terms": []map[string]any{{"field": "item_id", "value": pubItem}}}}
	res := e.do("POST", "/api/data/segments/search", outsider, body).status(200).json()
	if res["total_hits"].(float64) != 1 || fmt.Sprint(res["types"]) != "[segments]" {
		t.Fatalf("segments: %v", res)
	}
	all := e.do("POST", "/api/data/segments/search", e.adminToken, map[string]any{"query": "beach",
		"filters": map[string]any{"exists": []string{"item_id"}}}).status(200).json()
	if all["total_hits"].(float64) != 2 {
		t.Fatalf("admin segments: %v", all)
	}
	hidden := e.do("POST", "/api/data/segments/search", outsider, map[string]any{"query": "beach",
		"filters": map[string]any{"exists": []string{"item_id"}}}).status(200).json()
	if hidden["total_hits"].(float64) != 1 {
		t.Fatalf("outsider sees restricted segments: %v", hidden)
	}
	if r := e.do("POST", "/api/data/segments/search", outsider, map[string]any{"query": "beach"}); r.Code != 400 {
		t.Fatalf("segments without filters: %d", r.Code)
	}
	got := e.do("GET", "/api/data/segments/"+pubItem+"-1", outsider, nil).status(200).json()
	if got["item_id"] != pubItem || got["time"].(float64) != 1.5 {
		t.Fatalf("segment: %v", got)
	}
	e.do("GET", "/api/data/segments/"+secItem+"-1", outsider, nil).status(403)
	e.do("GET", "/api/data/segments/nope", outsider, nil).status(404)
}

func TestSavedSearches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, alice := e.userWithScopes("alice@example.com", "savedsearches:read", "savedsearches:write")
	_, bob := e.userWithScopes("bob@example.com", "savedsearches:read", "savedsearches:write")
	s := e.do("POST", "/api/data/saved-searches", alice, map[string]any{"name": "Clips", "params": "query=beach&types=video"}).status(201).json()
	id := s["saved_search_id"].(string)
	if s["params"] != "query=beach&types=video" || s["user_id"] == "" {
		t.Fatalf("create: %v", s)
	}
	if r := e.do("POST", "/api/data/saved-searches", alice, map[string]any{"name": "clips"}); r.Code != 409 {
		t.Fatalf("duplicate name: %d", r.Code)
	}
	e.do("POST", "/api/data/saved-searches", bob, map[string]any{"name": "Clips"}).status(201) // names are per user
	e.do("POST", "/api/data/saved-searches", alice, map[string]any{"params": "x"}).status(400)
	if n := len(e.do("GET", "/api/data/saved-searches", alice, nil).status(200).json()["saved_searches"].([]any)); n != 1 {
		t.Fatalf("alice has %d", n)
	}
	e.do("PATCH", "/api/data/saved-searches/"+id, bob, map[string]any{"params": "x"}).status(404)
	p := e.do("PATCH", "/api/data/saved-searches/"+id, alice, map[string]any{"params": "query=sunset"}).status(200).json()
	if p["params"] != "query=sunset" || p["name"] != "Clips" {
		t.Fatalf("patch: %v", p)
	}
	e.do("DELETE", "/api/data/saved-searches/"+id, bob, nil).status(404)
	d := e.do("DELETE", "/api/data/saved-searches/"+id, alice, nil).status(200).json()
	if d["deleted"] != true || d["saved_search_id"] != id {
		t.Fatalf("delete: %v", d)
	}
	e.do("DELETE", "/api/data/saved-searches/"+id, alice, nil).status(404)
}
