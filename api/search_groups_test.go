package api

import (
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// TestSearchVisibilityFollowsGroupChanges: who finds an item changes the
// moment its location's or container's groups change (restricting a
// public place, opening a restricted one, deleting a group), with no
// drain of the search outbox in between.
func TestSearchVisibilityFollowsGroupChanges(t *testing.T) {
	t.Parallel()
	e := newSearchEnv(t)
	_, outsider := e.userWithScopes("out@example.com", "search:read")
	memberID, member := e.userWithScopes("in@example.com", "search:read")
	e.do("PUT", "/api/data/v3/users/"+memberID+"/groups/"+e.group, e.adminToken, nil).status(200)
	sees := func(token, location string) float64 {
		t.Helper()
		q := map[string]any{"filters": map[string]any{"terms": []map[string]any{{"field": "location_id", "value": location}}}}
		return e.do("POST", "/api/data/search", token, q).status(200).json()["total_hits"].(float64)
	}
	outbox := func() int64 {
		var n int64
		e.db.Raw(`SELECT count(*) FROM search_outbox`).Scan(&n)
		return n
	}
	if sees(outsider, "pub") != 2 || sees(outsider, "sec") != 0 || sees(member, "sec") != 1 {
		t.Fatal("before any change")
	}

	// The public archive's container is restricted to the group.
	pub := models.ContainerID("pub", "media")
	e.do("PUT", "/api/data/containers", e.adminToken, map[string]any{"id": pub, "location_id": "pub", "enabled": false,
		"groups": []string{e.group}}).status(200)
	if n := sees(outsider, "pub"); n != 0 {
		t.Fatalf("an outsider still finds %v files of a container restricted a moment ago", n)
	}
	if n := sees(member, "pub"); n != 2 {
		t.Fatalf("a member finds %v files of the restricted container", n)
	}
	// Opened again.
	e.do("PUT", "/api/data/containers", e.adminToken, map[string]any{"id": pub, "location_id": "pub", "enabled": false,
		"groups": []string{}}).status(200)
	if n := sees(outsider, "pub"); n != 2 {
		t.Fatalf("the container opened again: an outsider finds %v files", n)
	}

	// The vault's location is restricted to a group that is then
	// deleted: the location restricts nobody any more.
	dir := t.TempDir()
	other := e.do("POST", "/api/data/v3/groups", e.adminToken, map[string]any{"name": "Other"}).status(201).json()["id"].(string)
	e.db.Model(&models.Location{}).Where("id = ?", "sec").Update("config", models.MustJSON(map[string]string{"path": dir}))
	loc := e.do("GET", "/api/data/v3/locations/sec", e.adminToken, nil).status(200).json()
	cfg := loc["config"].(map[string]any)
	cfg["groups"] = []string{other}
	e.do("PUT", "/api/data/v3/locations/sec", e.adminToken, map[string]any{"kind": loc["kind"], "name": loc["name"], "config": cfg}).status(200)
	if n := sees(member, "sec"); n != 0 {
		t.Fatalf("a member of the group the location left still finds %v files", n)
	}
	e.do("DELETE", "/api/data/v3/groups/"+other, e.adminToken, nil).status(200)
	if n := sees(outsider, "sec"); n != 1 {
		t.Fatalf("the location's only group was deleted: an outsider finds %v files", n)
	}
	if n := outbox(); n != 0 {
		t.Fatalf("%d items went through the outbox: the Postgres engine changes visibility in place", n)
	}
}
