package api

import (
	"testing"
)

func TestItemGetAndDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locID := e.createFSLocation(e.adminToken, "L", mkdirs(t, t.TempDir(), "news"))["id"].(string)
	itemID := e.insertItem(locID, "news", "2024/clip one.mp4")
	e.insertResult(itemID, "mediainfo", "")
	e.insertResult(itemID, "ocr", "tesseract failed")
	e.insertArtifact(itemID, "th/"+itemID+"/frame #1.jpg")

	var it struct {
		ID          string         `json:"id"`
		Name        string         `json:"name"`
		Path        string         `json:"path"`
		ContainerID string         `json:"container_id"`
		Metadata    map[string]any `json:"metadata"`
		Results     []struct {
			Extractor, Error string
		} `json:"results"`
		Artifacts []struct {
			Path, URL string
			Width     int
		} `json:"artifacts"`
		LastHarvested *string `json:"last_harvested"`
	}
	e.do("GET", "/api/data/items/"+itemID, e.adminToken, nil).status(200).decode(&it)
	if it.ID != itemID || it.Name != "clip one.mp4" || it.Path != "2024/clip one.mp4" || it.ContainerID != e.containerOf(locID, "news") {
		t.Fatalf("item %+v", it)
	}
	if it.Metadata["mediainfo"].(map[string]any)["duration"] != 1.5 || it.LastHarvested != nil {
		t.Fatalf("metadata %v, last_harvested %v", it.Metadata, it.LastHarvested)
	}
	if len(it.Results) != 2 || it.Results[1].Extractor != "ocr" || it.Results[1].Error != "tesseract failed" {
		t.Fatalf("results %+v", it.Results)
	}
	if len(it.Artifacts) != 1 || it.Artifacts[0].URL != "/api/data/artifacts/th/"+itemID+"/frame%20%231.jpg" || it.Artifacts[0].Width != 64 {
		t.Fatalf("artifacts %+v", it.Artifacts)
	}
	e.do("GET", "/api/data/items/nope", e.adminToken, nil).status(404)

	// Visibility: a grouped location hides its items from non-members.
	g := e.createGroup("Newsroom")
	loc := e.do("GET", "/api/data/v3/locations/"+locID, e.adminToken, nil).status(200).json()
	cfg := loc["config"].(map[string]any)
	cfg["groups"] = []string{g}
	e.do("PUT", "/api/data/v3/locations/"+locID, e.adminToken, map[string]any{"kind": "filesystem", "name": "L", "config": cfg, "version": 0}).status(200)
	uid, tok := e.userWithScopes("items@example.com", "items:read", "items:write")
	e.do("GET", "/api/data/items/"+itemID, tok, nil).status(403)
	e.do("DELETE", "/api/data/items/"+itemID, tok, nil).status(403)
	e.joinGroup(uid, g)
	e.do("GET", "/api/data/items/"+itemID, tok, nil).status(200)

	d := e.do("DELETE", "/api/data/items/"+itemID, tok, nil).status(200).json()
	if d["id"] != itemID || d["deleted"] != true {
		t.Fatalf("delete %v", d)
	}
	if e.auditCount("item", "delete", itemID) != 1 {
		t.Fatal("no delete audit event")
	}
	if n := e.count(`SELECT count(*) FROM items WHERE id = ? AND results <> '{}'`, itemID) + e.count(`SELECT count(*) FROM artifacts WHERE item_id = ?`, itemID); n != 0 {
		t.Fatal("results or artifacts left")
	}
	if n := e.count(`SELECT count(*) FROM search_outbox WHERE item_id = ?`, itemID); n != 1 {
		t.Fatal("deleted item not queued for the search index")
	}
	e.do("GET", "/api/data/items/"+itemID, tok, nil).status(404)
	e.do("DELETE", "/api/data/items/"+itemID, tok, nil).status(404)
}
