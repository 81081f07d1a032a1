package api

import (
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/models"
)

// TestSearchVisibilityFollowsGroupChanges: who finds an item changes the
// moment its location's or container's groups change (restricting a
// public place, opening a restricted one, deleting one of its groups), with
// no drain of the search outbox in between; a group that is the only one of
// a location is not deleted.
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

	// The vault's location is restricted to another group alone: that
	// group is not deleted (the vault would open to everyone), and the
	// vault stays closed.
	dir := t.TempDir()
	other := e.do("POST", "/api/data/v3/groups", e.adminToken, map[string]any{"name": "Other"}).status(201).json()["id"].(string)
	e.db.Model(&models.Location{}).Where("id = ?", "sec").Update("config", models.MustJSON(map[string]string{"path": dir}))
	setGroups := func(groups ...string) {
		t.Helper()
		loc := e.do("GET", "/api/data/v3/locations/sec", e.adminToken, nil).status(200).json()
		cfg := loc["config"].(map[string]any)
		cfg["groups"] = groups
		e.do("PUT", "/api/data/v3/locations/sec", e.adminToken, map[string]any{"kind": loc["kind"], "name": loc["name"], "config": cfg}).status(200)
	}
	setGroups(other)
	if n := sees(member, "sec"); n != 0 {
		t.Fatalf("a member of the group the location left still finds %v files", n)
	}
	refused := e.do("DELETE", "/api/data/v3/groups/"+other, e.adminToken, nil).status(409)
	if code := refused.errCode(); code != "group_in_use" || !strings.Contains(string(refused.Body), "location sec") {
		t.Fatalf("deleting the vault's only group: %s", refused.Body)
	}
	if n := sees(outsider, "sec"); n != 0 {
		t.Fatalf("the deletion of the vault's only group was refused, yet an outsider finds %v files", n)
	}
	e.do("GET", "/api/data/v3/groups/"+other, e.adminToken, nil).status(200)
	// With a second group, the deletion goes through and narrows: the vault
	// keeps the member's group.
	setGroups(other, e.group)
	if n := sees(member, "sec"); n != 1 {
		t.Fatalf("a member of the vault's second group finds %v files", n)
	}
	e.do("DELETE", "/api/data/v3/groups/"+other, e.adminToken, nil).status(200)
	if n, m := sees(outsider, "sec"), sees(member, "sec"); n != 0 || m != 1 {
		t.Fatalf("the vault lost one of its two groups: an outsider finds %v files, the member %v", n, m)
	}
	var left []string
	e.db.Raw(`SELECT group_id FROM location_groups WHERE location_id = 'sec'`).Scan(&left)
	if len(left) != 1 || left[0] != e.group {
		t.Fatalf("the vault's groups after the deletion: %v", left)
	}
	// So is a container's only group.
	solo := e.do("POST", "/api/data/v3/groups", e.adminToken, map[string]any{"name": "Solo"}).status(201).json()["id"].(string)
	e.do("PUT", "/api/data/containers", e.adminToken, map[string]any{"id": pub, "location_id": "pub", "enabled": false,
		"groups": []string{solo}}).status(200)
	refused = e.do("DELETE", "/api/data/v3/groups/"+solo, e.adminToken, nil).status(409)
	if code := refused.errCode(); code != "group_in_use" || !strings.Contains(string(refused.Body), "container "+pub) {
		t.Fatalf("deleting a container's only group: %s", refused.Body)
	}
	if n := sees(outsider, "pub"); n != 0 {
		t.Fatalf("the deletion of the container's only group was refused, yet an outsider finds %v files", n)
	}
	if n := outbox(); n != 0 {
		t.Fatalf("%d items went through the outbox: the Postgres engine changes visibility in place", n)
	}
}
