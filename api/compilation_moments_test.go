package api

import (
	"slices"
	"testing"
)

// A compilation's entries may be moments of an item (in and out points):
// the same item several times, each moment once; entries are ordered and
// removed by their entry ids, an item id still names all of its entries.
func TestCompilationMoments(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	c := e.createCompilation(e.adminToken, "Moments", false)
	items := "/api/data/compilations/" + c.CompilationID + "/items"
	add := func(body map[string]any, status int) map[string]any {
		t.Helper()
		return e.do("POST", items, e.adminToken, body).status(status).json()
	}
	m1 := add(map[string]any{"item_id": e.video, "in_point": 1.5, "out_point": 3}, 201)
	if m1["entry_id"] == "" || m1["in_point"] != 1.5 || m1["out_point"] != 3.0 {
		t.Fatalf("moment %v", m1)
	}
	m2 := add(map[string]any{"item_id": e.video, "in_point": 0, "out_point": 1}, 201)
	whole := add(map[string]any{"item_id": e.video}, 201)
	if _, ok := whole["in_point"]; ok {
		t.Fatalf("the whole item has points: %v", whole)
	}
	add(map[string]any{"item_id": e.pdf}, 201)
	add(map[string]any{"item_id": e.video, "in_point": 1.5, "out_point": 3}, 409) // the same moment
	add(map[string]any{"item_id": e.video}, 409)                                  // the whole item again
	for _, bad := range []map[string]any{
		{"item_id": e.video, "in_point": 1},
		{"item_id": e.video, "out_point": 1},
		{"item_id": e.video, "in_point": -1, "out_point": 1},
		{"item_id": e.video, "in_point": 2, "out_point": 2},
	} {
		add(bad, 400)
	}

	entries := func(cb compilationEntriesBody) []string {
		var out []string
		for _, it := range cb.Items {
			out = append(out, it.EntryID)
		}
		return out
	}
	var got compilationEntriesBody
	e.do("GET", "/api/data/compilations/"+c.CompilationID, e.adminToken, nil).status(200).decode(&got)
	id1, id2, idw := m1["entry_id"].(string), m2["entry_id"].(string), whole["entry_id"].(string)
	if len(got.Items) != 4 || got.NumItems != 4 || got.Items[0].EntryID != id1 || got.Items[0].InPoint == nil ||
		*got.Items[0].InPoint != 1.5 || *got.Items[0].OutPoint != 3 || got.Items[2].InPoint != nil {
		t.Fatalf("detail %+v", got)
	}

	// Order by entry ids; an item id moves each of its entries.
	e.do("PUT", "/api/data/compilations/"+c.CompilationID+"/order-items", e.adminToken,
		map[string]any{"items": []string{id2, idw}}).status(200).decode(&got)
	if want := []string{id2, idw, id1}; !slices.Equal(entries(got)[:3], want) || got.Items[3].ItemID != e.pdf {
		t.Fatalf("ordered %v, want %v then the pdf", entries(got), want)
	}
	e.do("PUT", "/api/data/compilations/"+c.CompilationID+"/order-items", e.adminToken,
		map[string]any{"items": []string{e.pdf}}).status(200).decode(&got)
	if want := []string{id2, idw, id1}; got.Items[0].ItemID != e.pdf || !slices.Equal(entries(got)[1:], want) {
		t.Fatalf("ordered %v", entries(got))
	}

	// The clone keeps the moments.
	var cl compilationEntriesBody
	e.do("POST", "/api/data/compilations/"+c.CompilationID+"/clone", e.adminToken, map[string]any{"new_name": "Copy"}).
		status(201).decode(&cl)
	if len(cl.Items) != 4 || cl.Items[1].InPoint == nil || *cl.Items[1].InPoint != 0 || cl.Items[1].EntryID == id2 {
		t.Fatalf("clone %+v", cl)
	}

	// Remove one entry, then every entry of the item.
	e.do("DELETE", items+"/"+id1, e.adminToken, nil).status(200).decode(&got)
	if want := []string{id2, idw}; !slices.Equal(entries(got)[1:], want) {
		t.Fatalf("after removing a moment %v", entries(got))
	}
	e.do("DELETE", items+"/"+e.video, e.adminToken, nil).status(200).decode(&got)
	if len(got.Items) != 1 || got.Items[0].ItemID != e.pdf {
		t.Fatalf("after removing the video %+v", got.Items)
	}
	e.do("DELETE", items+"/"+id2, e.adminToken, nil).status(404)
}

type compilationEntriesBody struct {
	NumItems int `json:"num_items"`
	Items    []struct {
		EntryID  string   `json:"entry_id"`
		ItemID   string   `json:"item_id"`
		InPoint  *float64 `json:"in_point"`
		OutPoint *float64 `json:"out_point"`
	} `json:"items"`
}
