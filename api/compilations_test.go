package api

import (
	"slices"
	"testing"
	"time"
)

type compilationBody struct {
	CompilationID string         `json:"compilation_id"`
	Name          string         `json:"name"`
	NumItems      int            `json:"num_items"`
	Public        bool           `json:"public"`
	Thumbnail     *thumbnailJSON `json:"thumbnail"`
	Author        struct {
		UserID, FirstName, LastName, Email, Avatar string
	} `json:"author"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	Items     []struct {
		ItemID    string         `json:"item_id"`
		Filename  string         `json:"filename"`
		Thumbnail *thumbnailJSON `json:"thumbnail"`
		Order     int            `json:"order"`
		AddedAt   string         `json:"added_at"`
	} `json:"items"`
}

func (e *env) createCompilation(token, name string, public bool) compilationBody {
	e.t.Helper()
	var c compilationBody
	e.do("POST", "/api/data/compilations", token, map[string]any{"name": name, "public": public}).status(201).decode(&c)
	return c
}

func (e *env) compilation(token, id string) compilationBody {
	e.t.Helper()
	var c compilationBody
	e.do("GET", "/api/data/compilations/"+id, token, nil).status(200).decode(&c)
	return c
}

func (c compilationBody) itemIDs() []string {
	var out []string
	for _, it := range c.Items {
		out = append(out, it.ItemID)
	}
	return out
}

func TestCompilationsLifecycle(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	e.insertArtifact(e.pdf, "th/"+e.pdf+"/thumb_320.jpg")
	if err := e.db.Exec(`INSERT INTO artifacts (item_id, path, extractor, kind, width, height)
		VALUES (?, ?, 'thumbnailer', 'sprite', 800, 90)`, e.video, "th/"+e.video+"/sprite.jpg").Error; err != nil {
		t.Fatal(err)
	}

	c := e.createCompilation(e.adminToken, "Best of", false)
	if c.CompilationID == "" || c.Name != "Best of" || c.Public || c.NumItems != 0 || c.Thumbnail != nil ||
		c.Author.Email != adminEmail || c.Items == nil || len(c.Items) != 0 {
		t.Fatalf("created %+v", c)
	}
	e.do("POST", "/api/data/compilations", e.adminToken, map[string]any{"name": "x"}).status(400)
	e.do("POST", "/api/data/compilations", e.adminToken, map[string]any{"public": true}).status(400)
	if e.auditCount("compilation", "create", c.CompilationID) != 1 {
		t.Fatal("create not audited")
	}

	// Items: the end of the list by default, or at display_order.
	add := func(itemID string, order any) map[string]any {
		t.Helper()
		body := map[string]any{"item_id": itemID}
		if order != nil {
			body["display_order"] = order
		}
		return e.do("POST", "/api/data/compilations/"+c.CompilationID+"/items", e.adminToken, body).status(201).json()
	}
	a := add(e.video, nil)
	if a["item_id"] != e.video || a["filename"] != "holiday_video.mp4" || a["display_order"] != 0.0 ||
		a["thumbnail"].(map[string]any)["type"] != "sprite" {
		t.Fatalf("added %v", a)
	}
	add(e.secret, nil)
	b := add(e.pdf, 0)
	if b["display_order"] != 0.0 || b["thumbnail"].(map[string]any)["url"] != "/api/data/artifacts/th/"+e.pdf+"/thumb_320.jpg" {
		t.Fatalf("added first %v", b)
	}
	e.do("POST", "/api/data/compilations/"+c.CompilationID+"/items", e.adminToken, map[string]any{"item_id": e.pdf}).status(409)
	e.do("POST", "/api/data/compilations/"+c.CompilationID+"/items", e.adminToken, map[string]any{"item_id": "nope"}).status(404)
	e.do("POST", "/api/data/compilations/"+c.CompilationID+"/items", e.adminToken, map[string]any{"item_id": e.pdf, "display_order": -1}).status(400)

	got := e.compilation(e.adminToken, c.CompilationID)
	if want := []string{e.pdf, e.video, e.secret}; !slices.Equal(got.itemIDs(), want) || got.NumItems != 3 {
		t.Fatalf("items %v, want %v", got.itemIDs(), want)
	}
	if got.Thumbnail == nil || got.Thumbnail.Type != "image" || got.Thumbnail.Width != 64 || got.Thumbnail.Path != "th/"+e.pdf+"/thumb_320.jpg" {
		t.Fatalf("thumbnail of the first item %+v", got.Thumbnail)
	}
	if !later(t, got.UpdatedAt, c.UpdatedAt) {
		t.Fatalf("updated_at did not move: %s then %s", c.UpdatedAt, got.UpdatedAt)
	}

	// Reorder: the listed ones first, the rest after as they were.
	var ord compilationBody
	e.do("PUT", "/api/data/compilations/"+c.CompilationID+"/order-items", e.adminToken, map[string]any{"items": []string{e.secret}}).
		status(200).decode(&ord)
	if want := []string{e.secret, e.pdf, e.video}; !slices.Equal(ord.itemIDs(), want) || !later(t, ord.UpdatedAt, got.UpdatedAt) {
		t.Fatalf("ordered %v (updated %s)", ord.itemIDs(), ord.UpdatedAt)
	}
	e.do("PUT", "/api/data/compilations/"+c.CompilationID+"/order-items", e.adminToken, map[string]any{"items": []string{"nope"}}).status(400)

	// Update, clone, remove an item, delete.
	var upd compilationBody
	e.do("PUT", "/api/data/compilations/"+c.CompilationID, e.adminToken, map[string]any{"name": "Best of 2024", "public": true}).
		status(200).decode(&upd)
	if upd.Name != "Best of 2024" || !upd.Public || upd.NumItems != 3 {
		t.Fatalf("updated %+v", upd)
	}
	var cl compilationBody
	e.do("POST", "/api/data/compilations/"+c.CompilationID+"/clone", e.adminToken, map[string]any{"new_name": "Copy"}).
		status(201).decode(&cl)
	if cl.CompilationID == c.CompilationID || cl.Name != "Copy" || !slices.Equal(cl.itemIDs(), ord.itemIDs()) {
		t.Fatalf("clone %+v", cl)
	}
	e.do("POST", "/api/data/compilations/"+c.CompilationID+"/clone", e.adminToken, map[string]any{}).status(400)
	var rm compilationBody
	e.do("DELETE", "/api/data/compilations/"+c.CompilationID+"/items/"+e.secret, e.adminToken, nil).status(200).decode(&rm)
	if !slices.Equal(rm.itemIDs(), []string{e.pdf, e.video}) {
		t.Fatalf("after remove %v", rm.itemIDs())
	}
	e.do("DELETE", "/api/data/compilations/"+c.CompilationID+"/items/"+e.secret, e.adminToken, nil).status(404)
	if n := e.count(`SELECT count(*) FROM items WHERE id = ? AND deleted_at IS NULL`, e.secret); n != 1 {
		t.Fatal("removing an item from a compilation deleted the item")
	}
	// A deleted item leaves the lists it is in.
	e.do("DELETE", "/api/data/items/"+e.video, e.adminToken, nil).status(200)
	if got := e.compilation(e.adminToken, cl.CompilationID); !slices.Equal(got.itemIDs(), []string{e.secret, e.pdf}) || got.NumItems != 2 {
		t.Fatalf("clone after item delete %v %d", got.itemIDs(), got.NumItems)
	}
	e.do("DELETE", "/api/data/compilations/"+c.CompilationID, e.adminToken, nil).status(200)
	e.do("GET", "/api/data/compilations/"+c.CompilationID, e.adminToken, nil).status(404)
	for _, action := range []string{"add-item", "order-items", "update", "remove-item", "delete"} {
		if e.auditCount("compilation", action, c.CompilationID) == 0 {
			t.Errorf("compilation %s not audited", action)
		}
	}
	if e.auditCount("compilation", "clone", cl.CompilationID) != 1 {
		t.Error("clone not audited")
	}
}

// A second, non-admin user: a non-public compilation of someone else is
// 404 and absent from their list; a public one is readable, not
// changeable (403), clonable; its items they may not see are not shown.
func TestCompilationsFromAnotherUser(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	priv := e.createCompilation(e.adminToken, "Private", false)
	pub := e.createCompilation(e.adminToken, "Public", true)
	for _, id := range []string{e.secret, e.video} {
		e.do("POST", "/api/data/compilations/"+pub.CompilationID+"/items", e.adminToken, map[string]any{"item_id": id}).status(201)
		e.do("POST", "/api/data/compilations/"+priv.CompilationID+"/items", e.adminToken, map[string]any{"item_id": id}).status(201)
	}
	mine := e.createCompilation(e.other, "Mine", false)

	var list struct {
		Compilations []compilationBody `json:"compilations"`
	}
	e.do("GET", "/api/data/compilations", e.other, nil).status(200).decode(&list)
	seen := map[string]compilationBody{}
	for _, c := range list.Compilations {
		seen[c.CompilationID] = c
	}
	if _, ok := seen[priv.CompilationID]; ok || len(seen) != 2 {
		t.Fatalf("second user's list %+v", list)
	}
	if p := seen[pub.CompilationID]; p.NumItems != 1 || p.Items != nil {
		t.Fatalf("public compilation as listed to the second user %+v", p)
	}
	e.do("GET", "/api/data/compilations", e.adminToken, nil).status(200).decode(&list)
	if len(list.Compilations) != 3 {
		t.Fatalf("admin list %d", len(list.Compilations))
	}

	// The private one: 404 whatever they try.
	base := "/api/data/compilations/" + priv.CompilationID
	e.do("GET", base, e.other, nil).status(404)
	e.do("PUT", base, e.other, map[string]any{"name": "x"}).status(404)
	e.do("DELETE", base, e.other, nil).status(404)
	e.do("POST", base+"/items", e.other, map[string]any{"item_id": e.pdf}).status(404)
	e.do("DELETE", base+"/items/"+e.video, e.other, nil).status(404)
	e.do("PUT", base+"/order-items", e.other, map[string]any{"items": []string{}}).status(404)
	e.do("POST", base+"/clone", e.other, map[string]any{"new_name": "stolen"}).status(404)

	// The public one: readable without the Secret item; not theirs to change.
	got := e.compilation(e.other, pub.CompilationID)
	if !slices.Equal(got.itemIDs(), []string{e.video}) || got.NumItems != 1 {
		t.Fatalf("public compilation as the second user sees it: %v", got.itemIDs())
	}
	base = "/api/data/compilations/" + pub.CompilationID
	e.do("PUT", base, e.other, map[string]any{"name": "x"}).status(403)
	e.do("DELETE", base, e.other, nil).status(403)
	e.do("POST", base+"/items", e.other, map[string]any{"item_id": e.pdf}).status(403)
	e.do("DELETE", base+"/items/"+e.video, e.other, nil).status(403)
	e.do("PUT", base+"/order-items", e.other, map[string]any{"items": []string{e.video}}).status(403)
	var cl compilationBody
	e.do("POST", base+"/clone", e.other, map[string]any{"new_name": "My copy"}).status(201).decode(&cl)
	if cl.Author.Email != "other@example.com" || !slices.Equal(cl.itemIDs(), []string{e.video}) {
		t.Fatalf("clone by the second user %+v", cl)
	}
	if n := e.count(`SELECT count(*) FROM compilation_items WHERE compilation_id = ?`, cl.CompilationID); n != 1 {
		t.Fatalf("the clone copied %d items, the second user sees 1", n)
	}

	// Their own compilation: theirs to change; not an item they may not see.
	base = "/api/data/compilations/" + mine.CompilationID
	e.do("POST", base+"/items", e.other, map[string]any{"item_id": e.secret}).status(403)
	e.do("POST", base+"/items", e.other, map[string]any{"item_id": e.pdf}).status(201)
	e.do("PUT", base, e.other, map[string]any{"public": true}).status(200)
	e.do("GET", base, e.adminToken, nil).status(200)
	// An administrator may change anyone's.
	e.do("PUT", base, e.adminToken, map[string]any{"name": "Moderated"}).status(200)
	e.do("DELETE", base, e.other, nil).status(200)
}

// later reports whether timestamp a is after b.
func later(t *testing.T, a, b string) bool {
	t.Helper()
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	if err1 != nil || err2 != nil {
		t.Fatalf("timestamps %q %q", a, b)
	}
	return ta.After(tb)
}
