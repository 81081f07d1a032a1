package people_test

import (
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/faceindex"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/people/peopletest"
)

// An archive described by one model, then harvested again by another
// (issue 44: faceres alone, then faceres with faceres-deep). The old
// model's faces have descriptors of facedesc.FaceresDims numbers.
const (
	oldModel = "human-faceres 3.3.6"
	newModel = "human-faceres+faceres-deep 3.3.6/3.0.4"
)

// Faces of another model are never compared, even with descriptors of
// one length: the same numbers under another model's name make a new
// person, and a new-model face never joins an old-model face.
func TestFacesOfAnotherModelNeverCompared(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	old := peopletest.NewFacesDims(21, 1, facedesc.FaceresDims)
	w := peopletest.NewFaces(22, 1)
	same := w.Face(0)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: old.Face(0), model: oldModel}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: same, model: "other-model 1"}})
	harvest(t, db, "c", "c1", []fakeFace{{local: "c0", desc: same, model: newModel}})
	harvest(t, db, "d", "c1", []fakeFace{{local: "d0", desc: w.Face(0), model: newModel}})
	assignAll(t, db)
	a, b, c, d := personOf(t, db, "a", 0), personOf(t, db, "b", 0), personOf(t, db, "c", 0), personOf(t, db, "d", 0)
	if a == "" || a == b || a == c || b == c {
		t.Errorf("faces of three models share a person: a %q b %q c %q", a, b, c)
	}
	if d != c {
		t.Errorf("two faces of one person and one model: %q and %q", c, d)
	}
	if n := count(t, db, `SELECT count(*) FROM person_faces WHERE model = ? AND box_width = 80`, newModel); n != 2 {
		t.Errorf("%d faces of the new model with their box", n)
	}
}

// An item described again by a new model keeps its faces' persons when
// each face keeps its index, frame and box (its code cannot say): named
// persons keep their names through the upgrade, and new faces of the new
// model then join them. A face whose box moved is not kept by that rule.
func TestNewModelKeepsPersons(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	old := peopletest.NewFacesDims(31, 3, facedesc.FaceresDims)
	w := peopletest.NewFaces(32, 3)
	at := func(l, t float32) *[4]float32 { return &[4]float32{l, t, 80, 80} }
	frame := 2.0
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: old.Face(0), model: oldModel, box: at(100, 50)},
		{local: "a1", desc: old.Face(1), model: oldModel, box: at(300, 50)}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: old.Face(0), model: oldModel, box: at(20, 20), time: &frame}})
	harvest(t, db, "e", "c1", []fakeFace{{local: "e0", desc: old.Face(2), model: oldModel, box: at(400, 400)}})
	a := &people.Assigner{DB: db, Rule: people.Rule{Threshold: 0.5}}
	drain(t, a)
	ada, bob, eve := personOf(t, db, "a", 0), personOf(t, db, "a", 1), personOf(t, db, "e", 0)
	if ada == "" || personOf(t, db, "b", 0) != ada || bob == ada || eve == ada || eve == bob {
		t.Fatalf("before the upgrade: %q %q %q %q", ada, personOf(t, db, "b", 0), bob, eve)
	}
	if err := db.Transaction(func(tx *gorm.DB) error {
		if err := store.RenamePerson(tx, ada, "Ada", time.Now()); err != nil {
			return err
		}
		return store.RenamePerson(tx, eve, "Eve", time.Now())
	}); err != nil {
		t.Fatal(err)
	}

	// The upgrade: each item harvested again, described by the new model.
	// Boxes move a little (another run of the finder); e's face is found
	// elsewhere in its picture (IoU 0), and is someone else's.
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0), model: newModel, box: at(104, 47)},
		{local: "a1", desc: w.Face(1), model: newModel, box: at(295, 55)}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "b0", desc: w.Face(0), model: newModel, box: at(22, 25), time: &frame}})
	harvest(t, db, "e", "c1", []fakeFace{{local: "e0", desc: w.Face(2), model: newModel, box: at(100, 100)}})
	drain(t, a)
	if got := personOf(t, db, "a", 0); got != ada {
		t.Errorf("a's face 0 is %q after the upgrade, want Ada %q", got, ada)
	}
	if got := personOf(t, db, "b", 0); got != ada {
		t.Errorf("b's face is %q after the upgrade, want Ada %q", got, ada)
	}
	if got := personOf(t, db, "a", 1); got != bob {
		t.Errorf("a's face 1 is %q after the upgrade, want %q", got, bob)
	}
	if got := personOf(t, db, "e", 0); got == eve || got == "" {
		t.Errorf("e's face moved to another place and person, still %q (Eve %q)", got, eve)
	}
	var name string
	if err := db.Raw(`SELECT name FROM persons WHERE id = ?`, ada).Scan(&name).Error; err != nil || name != "Ada" {
		t.Errorf("Ada's name %q, %v", name, err)
	}
	if n := count(t, db, `SELECT count(*) FROM person_faces WHERE model = ?`, oldModel); n != 0 {
		t.Errorf("%d faces still of the old model", n)
	}
	// A new picture of Ada, new model: found among her faces.
	harvest(t, db, "c", "c1", []fakeFace{{local: "c0", desc: w.Face(0), model: newModel}})
	drain(t, a)
	if got := personOf(t, db, "c", 0); got != ada {
		t.Errorf("a new face of Ada joined %q", got)
	}
	// A fresh assigner (another worker) builds its index from the codes
	// and finds her too.
	harvest(t, db, "f", "c1", []fakeFace{{local: "f0", desc: w.Face(0), model: newModel}})
	assignAll(t, db)
	if got := personOf(t, db, "f", 0); got != ada {
		t.Errorf("a new face of Ada joined %q (fresh assigner)", got)
	}
}

// A reference picture described by the old model is described again when
// faces of a new model come: until then it names no face of the new
// model; once described again (by a worker, here by hand) it names them.
func TestReferenceOfOldModelDescribedAgain(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	old := peopletest.NewFacesDims(41, 2, facedesc.FaceresDims)
	w := peopletest.NewFaces(42, 2)
	teachModel(t, db, "ada", "Ada", old.Face(0), oldModel)
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: old.Face(0), model: oldModel}})
	a := &people.Assigner{DB: db, Rule: people.Rule{Threshold: 0.7}}
	drain(t, a)
	if got := personOf(t, db, "a", 0); got != "ada" {
		t.Fatalf("an old-model face of Ada is %q", got)
	}

	harvest(t, db, "x", "c1", []fakeFace{{local: "x0", desc: w.Face(0), model: newModel}})
	drain(t, a)
	if got := personOf(t, db, "x", 0); got == "ada" || got == "" {
		t.Errorf("a new-model face compared with an old-model reference: %q", got)
	}
	var ref struct {
		ID      int64
		Status  string
		Applied bool
		Model   string
	}
	if err := db.Raw(`SELECT id, status, applied, model FROM person_references WHERE person_id = 'ada'`).Scan(&ref).Error; err != nil {
		t.Fatal(err)
	}
	if ref.Status != "pending" || ref.Applied || ref.Model != oldModel {
		t.Fatalf("the old-model reference after new-model faces came: %+v", ref)
	}
	if pending, err := store.ReferencesPending(db); err != nil || !pending {
		t.Fatalf("no reference to describe: %v %v", pending, err)
	}

	// A worker describes it again, with the new model.
	desc := w.Face(0)
	v, _ := facedesc.Dequantize(desc)
	if err := store.DescribedReference(db, ref.ID, desc, newModel, faceindex.Encode(v).Bytes(), "", time.Now()); err != nil {
		t.Fatal(err)
	}
	drain(t, a)
	if got := personOf(t, db, "x", 0); got != "ada" {
		t.Errorf("the new-model face is %q once the reference is described again", got)
	}
	harvest(t, db, "y", "c1", []fakeFace{{local: "y0", desc: w.Face(0), model: newModel}, {local: "y1", desc: w.Face(1), model: newModel}})
	drain(t, a)
	if got := personOf(t, db, "y", 0); got != "ada" {
		t.Errorf("a later new-model face of Ada is %q", got)
	}
	if got := personOf(t, db, "y", 1); got == "ada" {
		t.Error("someone else named Ada")
	}
	// Her old-model face stays hers; the reference is not sent back again.
	if got := personOf(t, db, "a", 0); got != "ada" {
		t.Errorf("the old-model face left Ada: %q", got)
	}
	if n := count(t, db, `SELECT count(*) FROM person_references WHERE status = 'pending'`); n != 0 {
		t.Errorf("%d references pending again", n)
	}
}

// Deleting a reference picture lets go only of faces of its own model:
// a face of another model on the same person is never compared with it,
// even when the numbers would match.
func TestDeletedReferenceReleasesFacesOfItsModel(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	w := peopletest.NewFaces(51, 1)
	teachModel(t, db, "ada", "Ada", w.Face(0), "other-model 1")
	// x first: the newest face is of the reference's model, which is
	// then not sent back to be described again.
	harvest(t, db, "x", "c1", []fakeFace{{local: "x0", desc: w.Face(0), model: newModel}})
	harvest(t, db, "a", "c1", []fakeFace{{local: "a0", desc: w.Face(0), model: "other-model 1"}})
	a := &people.Assigner{DB: db, Rule: people.Rule{Threshold: 0.7}}
	drain(t, a)
	if got := personOf(t, db, "a", 0); got != "ada" {
		t.Fatalf("a's face is %q", got)
	}
	// x's face put on Ada some other way (not by hand: unpinned).
	if err := db.Exec(`UPDATE person_faces SET person_id = 'ada' WHERE item_id = 'x'`).Error; err != nil {
		t.Fatal(err)
	}
	ids := referenceIDs(t, db, "ada")
	if len(ids) != 1 {
		t.Fatalf("references %v", ids)
	}
	if n := deleteReference(t, db, ids[0]); n != 1 {
		t.Errorf("%d faces released, want a's only", n)
	}
	if got := personOf(t, db, "x", 0); got != "ada" {
		t.Errorf("x's face (another model) was released: %q", got)
	}
}
