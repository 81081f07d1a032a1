package people_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/people/peopletest"
)

type fakeFace struct {
	local string   // the item's own person
	time  *float64 // video frame
	desc  []byte
	model string      // "test" when ""
	box   *[4]float32 // left, top, width, height; 10*i, 5, 80, 80 when nil
}

func fixture(t *testing.T) *gorm.DB {
	t.Helper()
	db := testdb.New(t)
	for _, stmt := range []string{
		`INSERT INTO groups (id, name) VALUES ('g1', 'one'), ('g2', 'two')`,
		`INSERT INTO locations (id, kind, name) VALUES ('loc1', 'filesystem', 'archive'), ('loc2', 'filesystem', 'secret')`,
		`INSERT INTO location_groups (location_id, group_id) VALUES ('loc1', 'g1'), ('loc2', 'g2')`,
		`INSERT INTO containers (id, location_id, name) VALUES ('c1', 'loc1', 'photos'), ('c2', 'loc2', 'hidden')`,
	} {
		if err := db.Exec(stmt).Error; err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return db
}

// harvest stores an item's faces as a harvest of vendor_faces does: its
// data, its descriptors replacing those of before.
func harvest(t *testing.T, db *gorm.DB, item, container string, faces []fakeFace) {
	t.Helper()
	var list []map[string]any
	var rows store.FaceRows
	for i, f := range faces {
		e := map[string]any{"person_id": f.local, "width": 80, "height": 80, "left": 10 * i, "top": 5, "described": true}
		ms := int64(-1)
		if f.time != nil {
			e["time"] = *f.time
			ms = int64(*f.time * 1000)
		}
		list = append(list, e)
		rows.Item, rows.Extractor, rows.PersonID = append(rows.Item, item), append(rows.Extractor, "vendor_faces"), append(rows.PersonID, f.local)
		model := f.model
		if model == "" {
			model = "test"
		}
		box := [4]float32{float32(10 * i), 5, 80, 80}
		if f.box != nil {
			box = *f.box
		}
		rows.Thumbnail, rows.Model = append(rows.Thumbnail, "ab/"+item+"/vendor_faces/faces/000"+string(rune('0'+i))+".jpg"), append(rows.Model, model)
		rows.Face, rows.TimeMS, rows.Descriptor = append(rows.Face, int32(i)), append(rows.TimeMS, ms), append(rows.Descriptor, f.desc)
		rows.Left, rows.Top, rows.Width, rows.Height = append(rows.Left, box[0]), append(rows.Top, box[1]), append(rows.Width, box[2]), append(rows.Height, box[3])
	}
	meta, _ := json.Marshal(map[string]any{"vendor_faces": map[string]any{"faces": list, "count": len(list)}})
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`INSERT INTO items (id, location_id, container_id, path, name, mime_type, metadata)
SELECT ?, location_id, id, ?, ?, 'image/jpeg', ? FROM containers WHERE id = ?
ON CONFLICT (id) DO UPDATE SET metadata = EXCLUDED.metadata, deleted_at = NULL`, item, item+".jpg", item+".jpg", string(meta), container).Error; err != nil {
			return err
		}
		if _, err := store.DeleteExtractorResults(tx, []string{item}, []string{"vendor_faces"}); err != nil {
			return err
		}
		return store.InsertFaceDescriptors(tx, rows, time.Now())
	})
	if err != nil {
		t.Fatalf("harvest %s: %v", item, err)
	}
}

func assignAll(t *testing.T, db *gorm.DB) *people.Assigner {
	t.Helper()
	a := &people.Assigner{DB: db, Rule: people.Rule{Threshold: 0.5}}
	drain(t, a)
	return a
}

func drain(t *testing.T, a *people.Assigner) {
	t.Helper()
	if err := a.Drain(context.Background()); err != nil {
		t.Fatalf("assign: %v", err)
	}
	if pending, err := store.PeoplePending(a.DB); err != nil || pending {
		t.Fatalf("items still pending after Drain: %v %v", pending, err)
	}
}

// personOf is the person of an item's face.
func personOf(t *testing.T, db *gorm.DB, item string, face int) string {
	t.Helper()
	var p *string
	if err := db.Raw(`SELECT person_id FROM person_faces WHERE item_id = ? AND face = ?`, item, face).Scan(&p).Error; err != nil {
		t.Fatal(err)
	}
	if p == nil {
		return ""
	}
	return *p
}

func count(t *testing.T, db *gorm.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Raw(q, args...).Scan(&n).Error; err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestSamePersonInTwoItemsIsOnePerson(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(1, 3)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0)}, {local: "a1", desc: w.Face(1)}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: w.Face(1)}})
	harvest(t, db, "c", "c2", []fakeFace{{local: "c0", desc: w.Face(0)}, {local: "c1", desc: w.Face(2)}})
	assignAll(t, db)
	p0, p1, p2 := personOf(t, db, "a", 0), personOf(t, db, "a", 1), personOf(t, db, "c", 1)
	if p0 == "" || p1 == "" || p2 == "" {
		t.Fatalf("faces without person: %q %q %q", p0, p1, p2)
	}
	if got := personOf(t, db, "b", 0); got != p1 {
		t.Errorf("person 1 in b is %s, in a %s", got, p1)
	}
	if got := personOf(t, db, "c", 0); got != p0 {
		t.Errorf("person 0 in c is %s, in a %s", got, p0)
	}
	if p0 == p1 || p0 == p2 || p1 == p2 {
		t.Errorf("two people share a person: %s %s %s", p0, p1, p2)
	}
	if n := count(t, db, `SELECT count(*) FROM persons`); n != 3 {
		t.Errorf("%d persons, want 3", n)
	}
	if n := count(t, db, `SELECT sum(faces) FROM person_containers WHERE person_id = ?`, p0); n != 2 {
		t.Errorf("person 0 counts %d faces, want 2", n)
	}
	if n := count(t, db, `SELECT count(*) FROM search_outbox WHERE item_id IN ('a', 'b', 'c')`); n != 3 {
		t.Errorf("%d items marked for search, want 3", n)
	}
}

// TestTwoFacesOfOnePictureAreTwoPeople: even alike, two faces seen
// together are two people.
func TestTwoFacesOfOnePictureAreTwoPeople(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(2, 1)
	harvest(t, db, "twins", "c1", []fakeFace{{local: "t0", desc: w.Face(0)}, {local: "t1", desc: w.Face(0)}})
	assignAll(t, db)
	if a, b := personOf(t, db, "twins", 0), personOf(t, db, "twins", 1); a == b {
		t.Errorf("two faces of one picture share person %s", a)
	}
}

func TestHarvestAgainKeepsPersons(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(3, 2)
	d0, d1 := w.Face(0), w.Face(1)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: d0}, {local: "a1", desc: d1}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: w.Face(1)}})
	a := assignAll(t, db)
	p0, p1 := personOf(t, db, "a", 0), personOf(t, db, "a", 1)
	// Again, the same faces; a new assigner as after a restart, and the
	// one of before.
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: d0}, {local: "a1", desc: d1}})
	drain(t, a)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: d0}, {local: "a1", desc: d1}})
	assignAll(t, db)
	if q0, q1 := personOf(t, db, "a", 0), personOf(t, db, "a", 1); q0 != p0 || q1 != p1 {
		t.Errorf("harvested again: persons %s %s, before %s %s", q0, q1, p0, p1)
	}
	if n := count(t, db, `SELECT count(*) FROM persons`); n != 2 {
		t.Errorf("%d persons, want 2", n)
	}
	// One face fewer: it goes, and its person with it when it had no other.
	harvest(t, db, "a", "c1", []fakeFace{{local: "a1", desc: d1}})
	drain(t, a)
	if n := count(t, db, `SELECT count(*) FROM persons WHERE id = ?`, p0); n != 0 {
		t.Errorf("person %s without faces is still there", p0)
	}
	if got := personOf(t, db, "a", 0); got != p1 {
		t.Errorf("face 0 now of %q, want %s (same descriptor, same index)", got, p1)
	}
}

func TestDeletedItemLeavesItsPeople(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(4, 2)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0)}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: w.Face(0)}, {local: "b1", desc: w.Face(1)}})
	a := assignAll(t, db)
	p0, p1 := personOf(t, db, "b", 0), personOf(t, db, "b", 1)
	// Marked deleted by a walk (descriptors stay): the trigger on items.
	if err := db.Exec(`UPDATE items SET deleted_at = now() WHERE id = 'b'`).Error; err != nil {
		t.Fatal(err)
	}
	drain(t, a)
	if n := count(t, db, `SELECT count(*) FROM persons WHERE id = ?`, p1); n != 0 {
		t.Error("the person only in the deleted item is still there")
	}
	if n := count(t, db, `SELECT coalesce(sum(faces), 0) FROM person_containers WHERE person_id = ?`, p0); n != 1 {
		t.Errorf("person in both items counts %d faces, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM person_faces WHERE item_id = 'b'`); n != 0 {
		t.Errorf("%d faces of the deleted item kept", n)
	}
}

// TestAssignerKilledMidWay: an assigner whose connection dies in the
// middle of its transaction (a worker killed) leaves nothing half done:
// its items stay pending, and the next assigner (a new process) gives
// every face one person, once.
func TestAssignerKilledMidWay(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(5, 3)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0)}, {local: "a1", desc: w.Face(1)}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: w.Face(0)}, {local: "b1", desc: w.Face(2)}})
	doomed := &people.Assigner{DB: db, Rule: people.Rule{Threshold: 0.5}}
	killMidRound(t, db, doomed)
	if n := count(t, db, `SELECT count(*) FROM person_faces`); n != 0 {
		t.Fatalf("%d faces kept of a transaction that died", n)
	}
	assignAll(t, db) // a new worker
	if n := count(t, db, `SELECT count(*) FROM person_faces WHERE person_id IS NOT NULL`); n != 4 {
		t.Errorf("%d faces with a person, want 4", n)
	}
	if n := count(t, db, `SELECT count(*) FROM persons`); n != 3 {
		t.Errorf("%d persons, want 3", n)
	}
	if personOf(t, db, "a", 0) != personOf(t, db, "b", 0) {
		t.Error("the same person in a and b has two ids")
	}
	// The killed assigner's process, were it alive, catches up too: its
	// index is rebuilt after the failure and it finds nothing to do.
	if err := doomed.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// killMidRound runs a round of doomed and kills its connection once it has
// written its faces (it then waits on the search outbox, locked here), as
// a worker killed mid-way; it returns when the killed backend has exited
// (until then it holds the people lock, and a drain would find it taken
// and leave the items pending).
func killMidRound(t *testing.T, db *gorm.DB, doomed *people.Assigner) {
	t.Helper()
	blocker := db.Begin()
	if err := blocker.Exec(`LOCK TABLE search_outbox IN EXCLUSIVE MODE`).Error; err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback()
	done := make(chan error, 1)
	go func() { _, err := doomed.Round(context.Background()); done <- err }()
	deadline := time.Now().Add(30 * time.Second)
	var pid int
	for pid == 0 {
		db.Raw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
			AND query LIKE '%search_outbox%' LIMIT 1`).Scan(&pid)
		if time.Now().After(deadline) {
			t.Fatal("the assigner never reached the search outbox")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := db.Exec(`SELECT pg_terminate_backend(?)`, pid).Error; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("the killed assigner's round succeeded")
	}
	for count(t, db, `SELECT count(*) FROM pg_stat_activity WHERE pid = ?`, pid) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("backend %d never exited", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An administrator's list of people reads the counts kept on the persons
// (RecountPeople); they are the counts of a user who sees every container,
// added up from the per-container rows, through assignment, a deleted
// item and a merge.
func TestEveryonesPeopleCountedAsAUserWhoSeesAll(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(15, 3)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0)}, {local: "a1", desc: w.Face(1)}})
	harvest(t, db, "b", "c2", []fakeFace{{local: "b0", desc: w.Face(0)}})
	harvest(t, db, "c", "c2", []fakeFace{{local: "c0", desc: w.Face(2)}})
	a := assignAll(t, db)
	admin := store.Viewer{UserID: "root", Admin: true}
	user := store.Viewer{UserID: "u", Groups: []string{"g1", "g2"}}
	same := func(when string) {
		t.Helper()
		for _, sort := range store.PeopleSorts {
			q := store.PeopleQuery{Limit: 50, Sort: sort}
			all, n, err := store.ListPeople(db, admin, q)
			if err != nil {
				t.Fatal(err)
			}
			seen, m, err := store.ListPeople(db, user, q)
			if err != nil {
				t.Fatal(err)
			}
			if n != m || len(all) != len(seen) {
				t.Fatalf("%s, sort %s: administrator %d persons (%d listed), user %d (%d)", when, sort, n, len(all), m, len(seen))
			}
			for i := range all {
				x, y := all[i], seen[i]
				if x.ID != y.ID || x.Faces != y.Faces || x.Items != y.Items || !sameTime(x.FirstSeen, y.FirstSeen) || !sameTime(x.LastSeen, y.LastSeen) {
					t.Errorf("%s, sort %s, row %d: administrator %+v, user %+v", when, sort, i, x, y)
				}
			}
		}
	}
	same("assigned")
	if n := count(t, db, `SELECT faces FROM persons WHERE id = ?`, personOf(t, db, "a", 0)); n != 2 {
		t.Errorf("the person seen twice counts %d faces", n)
	}
	exec(t, db, `UPDATE items SET deleted_at = now() WHERE id = 'b'`)
	drain(t, a)
	same("an item deleted")
	if n := count(t, db, `SELECT faces FROM persons WHERE id = ?`, personOf(t, db, "a", 0)); n != 1 {
		t.Errorf("after deleting an item the person counts %d faces, want 1", n)
	}
}

func sameTime(a, b *time.Time) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Equal(*b))
}
