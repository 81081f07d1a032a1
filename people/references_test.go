package people_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/blobstore"
	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/faceindex"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/people/peopletest"
)

// teach makes a named person with one described reference picture of
// descriptor desc, as the api and a worker do, and returns its id.
func teach(t *testing.T, db *gorm.DB, id, name string, desc []byte) string {
	t.Helper()
	return teachModel(t, db, id, name, desc, "test")
}

// teachModel is teach with a descriptor made by model.
func teachModel(t *testing.T, db *gorm.DB, id, name string, desc []byte, model string) string {
	t.Helper()
	v, err := facedesc.Dequantize(desc)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := store.NewTaughtPerson(tx, id, name, now); err != nil {
			return err
		}
		ref, err := store.AddReference(tx, id, "u1", now)
		if err != nil {
			return err
		}
		if err := store.SetReferencePicture(tx, ref, store.ReferencePrefix+id+"/1.jpg"); err != nil {
			return err
		}
		return store.DescribedReference(tx, ref, desc, model, faceindex.Encode(v).Bytes(), "", now)
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A reference picture names the faces already in the archive that match
// it, except those a user put elsewhere or marked "not this person", and
// never a face of another person.
func TestReferenceNamesEarlierFaces(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(11, 2)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0)}})
	harvest(t, db, "b", "c2", []fakeFace{{local: "b0", desc: w.Face(0)}, {local: "b1", desc: w.Face(1)}})
	harvest(t, db, "x", "c1", []fakeFace{{local: "x0", desc: w.Face(0)}})
	a := &people.Assigner{DB: db, Rule: people.Rule{Threshold: 0.7}}
	drain(t, a)
	before := personOf(t, db, "a", 0)
	other := personOf(t, db, "b", 1)
	if before == "" || personOf(t, db, "b", 0) != before || other == before {
		t.Fatalf("before teaching: %q %q %q", before, personOf(t, db, "b", 0), other)
	}
	teach(t, db, "ada", "Ada", w.Face(0))
	// x's face is "not this person" for Ada.
	if err := db.Exec(`INSERT INTO person_exclusions (item_id, extractor, face, person_id) VALUES ('x', 'vendor_faces', 0, 'ada')`).Error; err != nil {
		t.Fatal(err)
	}
	drain(t, a)
	if pending, err := store.ReferencesToApply(db); err != nil || pending {
		t.Fatalf("references not applied: %v %v", pending, err)
	}
	if got := personOf(t, db, "a", 0); got != "ada" {
		t.Errorf("a's face is %q, want ada", got)
	}
	if got := personOf(t, db, "b", 0); got != "ada" {
		t.Errorf("b's face 0 is %q, want ada", got)
	}
	if got := personOf(t, db, "b", 1); got != other {
		t.Errorf("b's other face is %q, want %q", got, other)
	}
	if got := personOf(t, db, "x", 0); got != before {
		t.Errorf("x's face (not Ada) is %q, want %q", got, before)
	}
	if n := count(t, db, `SELECT sum(faces) FROM person_containers WHERE person_id = 'ada'`); n != 2 {
		t.Errorf("Ada counts %d faces, want 2", n)
	}
	if n := count(t, db, `SELECT count(*) FROM search_outbox WHERE item_id IN ('a', 'b')`); n != 2 {
		t.Errorf("%d items marked for search, want 2", n)
	}
}

// A new face within the threshold of a reference picture joins the
// taught person, whatever faces of other persons are nearer; a face of
// someone else does not.
func TestReferencePreferredForNewFaces(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(12, 2)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0)}})
	a := &people.Assigner{DB: db, Rule: people.Rule{Threshold: 0.7}}
	drain(t, a)
	bob := personOf(t, db, "a", 0)
	if err := db.Exec(`UPDATE persons SET name = 'Bob', is_known = true WHERE id = ?`, bob).Error; err != nil {
		t.Fatal(err)
	}
	teach(t, db, "ada", "Ada", w.Face(0))
	drain(t, a)
	if got := personOf(t, db, "a", 0); got != bob {
		t.Errorf("a face of a named person moved to %q", got)
	}
	// Same face as a's, so nearer to Bob's face than to the reference.
	same := w.Face(0)
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: same}, {local: "b1", desc: w.Face(1)}})
	drain(t, a)
	if got := personOf(t, db, "b", 0); got != "ada" {
		t.Errorf("a new face of the taught person is %q, want ada", got)
	}
	if got := personOf(t, db, "b", 1); got == "ada" || got == "" {
		t.Errorf("someone else's face is %q", got)
	}
}

// Facial recognition turned off: every person goes with their reference
// pictures, rows and files.
func TestEraseAllRemovesReferences(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(13, 1)
	teach(t, db, "ada", "Ada", w.Face(0))
	files := blobstore.NewDir(filepath.Join(t.TempDir(), "artifacts"))
	ctx := context.Background()
	key := store.ReferencePrefix + "ada/1.jpg"
	if _, err := files.Put(ctx, key, strings.NewReader("jpeg"), 4); err != nil {
		t.Fatal(err)
	}
	n, err := people.EraseAllFrom(ctx, db, files)
	if err != nil || n != 1 {
		t.Fatalf("erased %d, %v", n, err)
	}
	if c := count(t, db, `SELECT count(*) FROM person_references`); c != 0 {
		t.Errorf("%d references left", c)
	}
	if _, err := files.Stat(ctx, key); !errors.Is(err, blobstore.ErrNotFound) {
		t.Errorf("the picture is still there: %v", err)
	}
}

// deleteReference deletes a person's reference picture as the api does.
func deleteReference(t *testing.T, db *gorm.DB, id int64) int {
	t.Helper()
	var released int
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := store.LockPeople(tx); err != nil {
			return err
		}
		done, err := people.DeleteReference(tx, id, 0.7)
		released = done.Released
		return err
	})
	if err != nil {
		t.Fatalf("delete reference %d: %v", id, err)
	}
	return released
}

func referenceIDs(t *testing.T, db *gorm.DB, person string) []int64 {
	t.Helper()
	var ids []int64
	if err := db.Raw(`SELECT id FROM person_references WHERE person_id = ? ORDER BY id`, person).Scan(&ids).Error; err != nil {
		t.Fatal(err)
	}
	return ids
}

// Deleting a reference picture takes back the faces it named: they are
// assigned again as faces never seen (here: together, as a new unnamed
// person), while a face a user put on the person stays, and faces another
// picture of the person names stay too.
func TestDeletingAReferenceReleasesTheFacesItNamed(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(14, 2)
	teach(t, db, "ada", "Ada", w.Face(0))
	a := &people.Assigner{DB: db, Rule: people.Rule{Threshold: 0.7}}
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0)}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: w.Face(0)}})
	harvest(t, db, "c", "c1", []fakeFace{{local: "c0", desc: w.Face(1)}})
	drain(t, a)
	if personOf(t, db, "a", 0) != "ada" || personOf(t, db, "b", 0) != "ada" || personOf(t, db, "c", 0) == "ada" {
		t.Fatalf("before: a %q, b %q, c %q", personOf(t, db, "a", 0), personOf(t, db, "b", 0), personOf(t, db, "c", 0))
	}
	// A user puts c's face (someone else) on Ada.
	if err := db.Exec(`UPDATE person_faces SET person_id = 'ada', pinned = true WHERE item_id = 'c'`).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`DELETE FROM search_outbox`).Error; err != nil {
		t.Fatal(err)
	}
	if n := deleteReference(t, db, referenceIDs(t, db, "ada")[0]); n != 2 {
		t.Errorf("%d faces released, want 2", n)
	}
	if n := count(t, db, `SELECT count(*) FROM search_outbox WHERE item_id IN ('a', 'b')`); n != 2 {
		t.Errorf("%d items marked for search, want 2", n)
	}
	drain(t, a)
	pa, pb := personOf(t, db, "a", 0), personOf(t, db, "b", 0)
	if pa == "ada" || pa == "" || pb != pa {
		t.Errorf("after: a %q, b %q: want one new person", pa, pb)
	}
	if n := count(t, db, `SELECT count(*) FROM persons WHERE id = ? AND NOT is_known`, pa); n != 1 {
		t.Errorf("the released faces' person %q is not an unnamed person", pa)
	}
	if got := personOf(t, db, "c", 0); got != "ada" {
		t.Errorf("the face a user put on Ada is %q", got)
	}
	if n := count(t, db, `SELECT sum(faces) FROM person_containers WHERE person_id = 'ada'`); n != 1 {
		t.Errorf("Ada counts %d faces, want 1", n)
	}

	// Taught from two pictures of her: deleting one leaves the faces the
	// other names.
	teach(t, db, "eve", "Eve", w.Face(0))
	drain(t, a)
	if personOf(t, db, "a", 0) != "eve" {
		t.Fatalf("a's face is %q after teaching Eve", personOf(t, db, "a", 0))
	}
	second := addReference(t, db, "eve", w.Face(0))
	drain(t, a)
	if n := deleteReference(t, db, referenceIDs(t, db, "eve")[0]); n != 0 {
		t.Errorf("%d faces released while another picture names them", n)
	}
	drain(t, a)
	if personOf(t, db, "a", 0) != "eve" || personOf(t, db, "b", 0) != "eve" {
		t.Errorf("after deleting one of two pictures: a %q, b %q", personOf(t, db, "a", 0), personOf(t, db, "b", 0))
	}
	if ids := referenceIDs(t, db, "eve"); len(ids) != 1 || ids[0] != second {
		t.Errorf("references left: %v, want [%d]", ids, second)
	}
}

// addReference adds a described reference picture to a person.
func addReference(t *testing.T, db *gorm.DB, person string, desc []byte) int64 {
	t.Helper()
	v, err := facedesc.Dequantize(desc)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var ref int64
	err = db.Transaction(func(tx *gorm.DB) error {
		if ref, err = store.AddReference(tx, person, "u1", now); err != nil {
			return err
		}
		if err := store.SetReferencePicture(tx, ref, store.ReferencePrefix+person+"/2.jpg"); err != nil {
			return err
		}
		return store.DescribedReference(tx, ref, desc, "test", faceindex.Encode(v).Bytes(), "", now)
	})
	if err != nil {
		t.Fatal(err)
	}
	return ref
}
