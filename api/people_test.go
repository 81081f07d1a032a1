package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/people/peopletest"
	"github.com/metaharvest/metaharvest/search"
)

type testFace struct {
	local string
	time  *float64
	desc  []byte
}

// harvestFaces stores faces of an item as a harvest of vendor_faces does.
func (e *searchEnv) harvestFaces(item string, faces []testFace) {
	e.t.Helper()
	var list, persons []map[string]any
	var rows store.FaceRows
	seen := map[string]bool{}
	for i, f := range faces {
		thumb := fmt.Sprintf("%s/%s/vendor_faces/faces/%04d.jpg", item[:2], item, i)
		entry := map[string]any{"person_id": f.local, "width": 90, "height": 90, "left": 20 * i, "top": 10, "described": true,
			"thumbnail_path": fmt.Sprintf("faces/%04d.jpg", i)}
		ms := int64(-1)
		if f.time != nil {
			entry["time"], ms = *f.time, int64(*f.time*1000)
		}
		list = append(list, entry)
		if !seen[f.local] {
			seen[f.local] = true
			persons = append(persons, map[string]any{"person_id": f.local, "is_known": false, "appearances": 1,
				"face_img_path": fmt.Sprintf("faces/%04d.jpg", i), "face_img_width": 90, "face_img_height": 90})
		}
		rows.Item, rows.Extractor, rows.PersonID = append(rows.Item, item), append(rows.Extractor, "vendor_faces"), append(rows.PersonID, f.local)
		rows.Thumbnail, rows.Model = append(rows.Thumbnail, thumb), append(rows.Model, "test")
		rows.Face, rows.TimeMS, rows.Descriptor = append(rows.Face, int32(i)), append(rows.TimeMS, ms), append(rows.Descriptor, f.desc)
		rows.Left, rows.Top, rows.Width, rows.Height = append(rows.Left, float32(20*i)), append(rows.Top, 10), append(rows.Width, 90), append(rows.Height, 90)
	}
	data, _ := json.Marshal(map[string]any{"faces": list, "people": persons, "count": len(list)})
	err := e.db.Transaction(func(tx *store.DB) error {
		if err := tx.Exec(`UPDATE items SET metadata = metadata || jsonb_build_object('vendor_faces', ?::jsonb) WHERE id = ?`,
			string(data), item).Error; err != nil {
			return err
		}
		if _, err := store.DeleteExtractorResults(tx, []string{item}, []string{"vendor_faces"}); err != nil {
			return err
		}
		if err := store.InsertFaceDescriptors(tx, rows, time.Now()); err != nil {
			return err
		}
		return search.MarkDirty(tx, item)
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// settle assigns the pending faces and indexes what changed.
func (e *searchEnv) settle(a *people.Assigner) {
	e.t.Helper()
	if err := a.Drain(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	if _, err := search.Drain(context.Background(), e.db, e.srv.Search, 100); err != nil {
		e.t.Fatal(err)
	}
}

func (e *searchEnv) searchNames(tok string, body map[string]any) []string {
	e.t.Helper()
	out := names(e.t, e.do("POST", "/api/data/search", tok, body).status(200).json())
	slices.Sort(out)
	return out
}

func personIDs(list []any) []string {
	var out []string
	for _, p := range list {
		out = append(out, p.(map[string]any)["person_id"].(string))
	}
	return out
}

// TestPeopleAcrossTheArchive: a person seen in a public video and in a
// secret file is one person; a user of the public location learns nothing
// of the secret one; naming, merging, correcting and deleting are seen in
// the API, the item summary and search.
func TestPeopleAcrossTheArchive(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	w := peopletest.NewFaces(44, 3)
	at := func(s float64) *float64 { return &s }
	e.harvestFaces(e.video, []testFace{{local: "v-eileen", time: at(1), desc: w.Face(0)}, {local: "v-bob", time: at(1), desc: w.Face(1)},
		{local: "v-bob2", time: at(9), desc: w.Face(1)}})
	e.harvestFaces(e.secret, []testFace{{local: "s-eileen", desc: w.Face(0)}, {local: "s-carl", desc: w.Face(2)}})
	a := &people.Assigner{DB: e.db, Rule: people.Rule{Threshold: 0.5}}
	e.settle(a)

	all := e.do("GET", "/api/data/people", e.adminToken, nil).status(200).json()
	if all["total"].(float64) != 3 {
		t.Fatalf("admin sees %v persons, want 3: %v", all["total"], all)
	}
	eileen := all["people"].([]any)[0].(map[string]any)
	_, user := e.userWithScopes("viewer@example.com", "people:read", "people:write", "search:read", "items:read")
	mine := e.do("GET", "/api/data/people", user, nil).status(200).json()
	if got := personIDs(mine["people"].([]any)); len(got) != 2 {
		t.Fatalf("the public user sees persons %v, want the two of the video", got)
	}
	var ei, bob map[string]any
	for _, p := range mine["people"].([]any) {
		pm := p.(map[string]any)
		switch pm["num_faces"].(float64) {
		case 1:
			ei = pm
		case 2:
			bob = pm
		}
	}
	if ei == nil || bob == nil || ei["num_items"].(float64) != 1 {
		t.Fatalf("public counts wrong: %v", mine["people"])
	}
	if ei["person_id"] != eileen["person_id"] && eileen["num_items"].(float64) == 2 {
		t.Fatalf("the person of two items is not the one of the video")
	}
	var carl string
	for _, id := range personIDs(all["people"].([]any)) {
		if id != ei["person_id"] && id != bob["person_id"] {
			carl = id
		}
	}
	e.do("GET", "/api/data/people/"+carl, user, nil).status(404)
	e.do("PATCH", "/api/data/people/"+carl, user, map[string]any{"name": "Carl"}).status(404)
	e.do("POST", "/api/data/people/"+ei["person_id"].(string)+"/faces", user, map[string]any{"item_id": e.secret, "face": 1}).status(404)
	detail := e.do("GET", "/api/data/people/"+ei["person_id"].(string), user, nil).status(200).json()
	if items := detail["items"].([]any); len(items) != 1 || items[0].(map[string]any)["item_id"] != e.video {
		t.Fatalf("public user sees items %v", items)
	}

	// Naming reaches the summary and search, on a word of the name.
	eid, bid := ei["person_id"].(string), bob["person_id"].(string)
	e.do("PATCH", "/api/data/people/"+eid, user, map[string]any{"name": "  Eileen Collins "}).status(200)
	e.do("PATCH", "/api/data/people/"+eid, user, map[string]any{"name": string(make([]byte, 201))}).status(400)
	e.do("PATCH", "/api/data/people/"+eid, user, map[string]any{"nom": "x"}).status(400)
	e.settle(a)
	if got := e.searchNames(user, map[string]any{"query": "Collins"}); !slices.Equal(got, []string{"holiday_video.mp4"}) {
		t.Errorf("public user's search for Collins: %v", got)
	}
	if got := e.searchNames(e.adminToken, map[string]any{"query": "collins"}); !slices.Equal(got, []string{"holiday_video.mp4", "secret_plan.txt"}) {
		t.Errorf("admin's search for collins: %v", got)
	}
	byID := map[string]any{"filters": map[string]any{"terms": []any{map[string]any{"field": "people.person_id", "value": eid}}}}
	if got := e.searchNames(e.adminToken, byID); len(got) != 2 {
		t.Errorf("filter by person id: %v", got)
	}
	facet := e.do("POST", "/api/data/search", e.adminToken, map[string]any{"query": "", "hit_counts": map[string]any{},
		"aggregations": map[string]any{"terms": []map[string]any{{"name": "people", "field": "people.name"}}}}).status(200).json()
	if hc := facet["hit_counts"].(map[string]any); hc["people"].(float64) < 2 {
		t.Errorf("hit_counts.people = %v", hc["people"])
	}
	if buckets := fmt.Sprint(facet["aggregations"].(map[string]any)["terms"].(map[string]any)["people"]); !strings.Contains(buckets, "Eileen Collins") {
		t.Errorf("people facet: %s", buckets)
	}
	sum := e.do("GET", "/api/data/v3/summary/items/"+e.video, user, nil).status(200).json()
	named := 0
	for _, p := range sum["summary"].(map[string]any)["people"].([]any) {
		person := p.(map[string]any)["person"].(map[string]any)
		if person["person_id"] == eid && person["name"] == "Eileen Collins" && person["is_known"] == true {
			named++
		}
		if person["person_id"] == bid && person["num_faces"].(float64) != 2 {
			t.Errorf("bob's two runs in the video are not one entry: %v", person)
		}
	}
	if named != 1 {
		t.Errorf("summary people: %v", sum["summary"].(map[string]any)["people"])
	}

	// Merge: bob is also Eileen (a mistake on purpose), then one of the
	// faces is not Eileen after all.
	e.do("POST", "/api/data/people/"+eid+"/merge", user, map[string]any{"person_ids": []string{bid}}).status(200)
	e.do("GET", "/api/data/people/"+bid, user, nil).status(404)
	e.settle(a)
	p := e.do("GET", "/api/data/people/"+eid, e.adminToken, nil).status(200).json()["person"].(map[string]any)
	if p["num_faces"].(float64) != 4 {
		t.Errorf("merged person has %v faces, want 4", p["num_faces"])
	}
	e.do("DELETE", fmt.Sprintf("/api/data/people/%s/faces/%s/2", eid, e.video), user, nil).status(200)
	e.settle(a)
	var moved *string
	e.db.Raw(`SELECT person_id FROM person_faces WHERE item_id = ? AND face = 2`, e.video).Scan(&moved)
	if moved == nil || *moved == eid {
		t.Fatalf("rejected face now of %v", moved)
	}
	// Remembered when the video is harvested again.
	e.harvestFaces(e.video, []testFace{{local: "v-eileen", time: at(1), desc: w.Face(0)}, {local: "v-bob", time: at(1), desc: w.Face(1)},
		{local: "v-bob2", time: at(9), desc: w.Face(1)}})
	e.settle(a)
	e.db.Raw(`SELECT person_id FROM person_faces WHERE item_id = ? AND face = 2`, e.video).Scan(&moved)
	if moved == nil || *moved == eid {
		t.Errorf("after another harvest the rejected face is of %v", moved)
	}

	// Delete Eileen: her descriptors go, her faces stay unknown, also
	// after another harvest; search forgets her.
	e.do("DELETE", "/api/data/people/"+eid, user, nil).status(200)
	e.settle(a)
	var left int
	e.db.Raw(`SELECT count(*) FROM face_descriptors WHERE item_id = ? AND face = 0`, e.secret).Scan(&left)
	if left != 0 {
		t.Errorf("deleted person's descriptor kept")
	}
	if got := e.searchNames(e.adminToken, map[string]any{"query": "collins"}); len(got) != 0 {
		t.Errorf("search still finds the deleted person: %v", got)
	}
	e.harvestFaces(e.secret, []testFace{{local: "s-eileen", desc: w.Face(0)}, {local: "s-carl", desc: w.Face(2)}})
	e.settle(a)
	var unknown *string
	e.db.Raw(`SELECT person_id FROM person_faces WHERE item_id = ? AND face = 0`, e.secret).Scan(&unknown)
	e.db.Raw(`SELECT count(*) FROM face_descriptors WHERE item_id = ? AND face = 0`, e.secret).Scan(&left)
	if unknown != nil || left != 0 {
		t.Errorf("after another harvest the deleted person's face is of %v with %d descriptors", unknown, left)
	}
	audit := e.do("GET", "/api/data/audit?target_kind=person", e.adminToken, nil).status(200).json()
	if n := len(audit["audit_events"].([]any)); n < 4 {
		t.Errorf("%d person audit events", n)
	}
}

// TestDeletingALocationRecountsItsPeople: a location's faces go with it; a
// person also seen elsewhere keeps the faces left there, a person seen only
// there disappears (docs/people.md, "Privacy").
func TestDeletingALocationRecountsItsPeople(t *testing.T) {
	t.Parallel()
	e := newCollabEnv(t)
	w := peopletest.NewFaces(45, 2)
	e.harvestFaces(e.video, []testFace{{local: "v-ann", desc: w.Face(0)}})
	e.harvestFaces(e.secret, []testFace{{local: "s-ann", desc: w.Face(0)}, {local: "s-carl", desc: w.Face(1)}})
	a := &people.Assigner{DB: e.db, Rule: people.Rule{Threshold: 0.5}}
	e.settle(a)
	var ann, carl string
	for _, p := range e.do("GET", "/api/data/people", e.adminToken, nil).status(200).json()["people"].([]any) {
		pm := p.(map[string]any)
		switch pm["num_items"].(float64) {
		case 2:
			ann = pm["person_id"].(string)
		case 1:
			carl = pm["person_id"].(string)
		}
	}
	if ann == "" || carl == "" {
		t.Fatalf("before: ann %q, carl %q", ann, carl)
	}

	e.do("DELETE", "/api/data/v3/locations/sec", e.adminToken, nil).status(200)
	e.settle(a)
	list := e.do("GET", "/api/data/people", e.adminToken, nil).status(200).json()
	if got := personIDs(list["people"].([]any)); !slices.Equal(got, []string{ann}) {
		t.Fatalf("people after the location's deletion: %v, want only %s", got, ann)
	}
	p := e.do("GET", "/api/data/people/"+ann, e.adminToken, nil).status(200).json()["person"].(map[string]any)
	if p["num_items"].(float64) != 1 || p["num_faces"].(float64) != 1 {
		t.Errorf("ann after the deletion: %v", p)
	}
	e.do("GET", "/api/data/people/"+carl, e.adminToken, nil).status(404)
	var rows int64
	e.db.Raw(`SELECT count(*) FROM persons WHERE id = ?`, carl).Scan(&rows)
	if rows != 0 {
		t.Errorf("the person seen only in the deleted location is still stored")
	}
}
