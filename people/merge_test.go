package people_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/people"
	"github.com/metaharvest/metaharvest/people/peopletest"
)

// mergeRule is the rule of these tests: two people (about 0.3 alike) stay
// apart, a face halfway between them (about 0.8 of each) bridges them.
var mergeRule = people.Rule{Threshold: 0.7, MergeBridged: true}

// between is a face halfway between two faces (their normalised sum).
func between(t *testing.T, a, b []byte) []byte {
	t.Helper()
	va, err := facedesc.Dequantize(a)
	if err != nil {
		t.Fatal(err)
	}
	vb, err := facedesc.Dequantize(b)
	if err != nil {
		t.Fatal(err)
	}
	sum := make([]float32, len(va))
	for i := range sum {
		sum[i] = va[i] + vb[i]
	}
	v, err := facedesc.Normalize(sum)
	if err != nil {
		t.Fatal(err)
	}
	return facedesc.Quantize(v)
}

// twoPeople harvests items a1, a2 (one person, two faces) and b (another
// person, one face), assigns them, and returns the two persons and the
// descriptors of a1 and b.
func twoPeople(t *testing.T, db *gorm.DB, seed uint64) (pa, pb string, da, db0 []byte) {
	t.Helper()
	w := peopletest.NewFaces(seed, 2)
	da, db0 = w.Face(0), w.Face(1)
	harvest(t, db, "a1", "c1", []fakeFace{{local: "x", desc: da}})
	harvest(t, db, "a2", "c1", []fakeFace{{local: "x", desc: w.Face(0)}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "x", desc: db0}})
	drain(t, &people.Assigner{DB: db, Rule: mergeRule})
	pa, pb = personOf(t, db, "a1", 0), personOf(t, db, "b", 0)
	if pa == "" || pa == pb || personOf(t, db, "a2", 0) != pa {
		t.Fatalf("before the bridge: persons %q %q %q", pa, personOf(t, db, "a2", 0), pb)
	}
	return pa, pb, da, db0
}

func exec(t *testing.T, db *gorm.DB, q string, args ...any) {
	t.Helper()
	if err := db.Exec(q, args...).Error; err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// A face within the threshold of faces of two unnamed persons makes them
// one: the one with more faces is left, with every face, counted, and
// the items of both marked dirty for search. Assigning again, by the same
// assigner or a new one, changes nothing more.
func TestBridgingFaceMergesPersons(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	pa, pb, da, dbb := twoPeople(t, db, 21)
	exec(t, db, `DELETE FROM search_outbox`)
	bridge := between(t, da, dbb)
	harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: bridge}})
	a := &people.Assigner{DB: db, Rule: mergeRule}
	drain(t, a)
	for _, it := range []string{"a1", "a2", "b", "c"} {
		if got := personOf(t, db, it, 0); got != pa {
			t.Errorf("%s's face is of %q, want %s (the person with more faces)", it, got, pa)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM persons`); n != 1 {
		t.Errorf("%d persons, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM persons WHERE id = ?`, pb); n != 0 {
		t.Errorf("the person merged is still there")
	}
	if n := count(t, db, `SELECT sum(faces) FROM person_containers WHERE person_id = ?`, pa); n != 4 {
		t.Errorf("the person left counts %d faces, want 4", n)
	}
	if n := count(t, db, `SELECT count(*) FROM person_containers WHERE person_id = ?`, pb); n != 0 {
		t.Errorf("the person merged still counts")
	}
	if n := count(t, db, `SELECT count(DISTINCT item_id) FROM search_outbox WHERE item_id IN ('a1', 'a2', 'b', 'c')`); n != 4 {
		t.Errorf("%d items marked for search, want 4", n)
	}
	// Harvested again, the same faces; then a new assigner (a restart).
	harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: bridge}})
	harvest(t, db, "b", "c1", []fakeFace{{local: "x", desc: dbb}})
	drain(t, a)
	drain(t, &people.Assigner{DB: db, Rule: mergeRule})
	for _, it := range []string{"a1", "a2", "b", "c"} {
		if got := personOf(t, db, it, 0); got != pa {
			t.Errorf("assigned again: %s's face is of %q, want %s", it, got, pa)
		}
	}
	if n := count(t, db, `SELECT sum(faces) FROM person_containers WHERE person_id = ?`, pa); n != 4 {
		t.Errorf("assigned again: %d faces, want 4", n)
	}
}

// Without PEOPLE_MERGE_BRIDGED the bridging face only joins the nearest.
func TestBridgingFaceWithoutMerging(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	_, _, da, dbb := twoPeople(t, db, 22)
	harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: between(t, da, dbb)}})
	drain(t, &people.Assigner{DB: db, Rule: people.Rule{Threshold: mergeRule.Threshold}})
	if n := count(t, db, `SELECT count(*) FROM persons`); n != 2 {
		t.Errorf("%d persons, want 2", n)
	}
}

// Persons users told apart are never merged by a bridging face: two named
// persons (even of the same name), a face of one marked "not this person"
// for the other, a hidden person, two persons seen in one picture. A named
// person absorbs an unnamed one with more faces, and keeps its id.
func TestBridgingFaceKeepsApart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, db *gorm.DB, pa, pb string)
		merge bool
	}{
		{"two named", func(t *testing.T, db *gorm.DB, pa, pb string) {
			exec(t, db, `UPDATE persons SET name = 'Ann', is_known = true WHERE id IN (?, ?)`, pa, pb)
		}, false},
		{"not this person", func(t *testing.T, db *gorm.DB, pa, pb string) {
			exec(t, db, `INSERT INTO person_exclusions (item_id, extractor, face, person_id) VALUES ('b', 'vendor_faces', 0, ?)`, pa)
		}, false},
		{"hidden", func(t *testing.T, db *gorm.DB, pa, pb string) {
			exec(t, db, `UPDATE persons SET hidden = true WHERE id = ?`, pb)
		}, false},
		{"hidden joined", func(t *testing.T, db *gorm.DB, pa, pb string) {
			exec(t, db, `UPDATE persons SET hidden = true WHERE id = ?`, pa)
		}, false},
		{"one named", func(t *testing.T, db *gorm.DB, pa, pb string) {
			exec(t, db, `UPDATE persons SET name = 'Bea', is_known = true WHERE id = ?`, pb)
		}, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := fixture(t)
			pa, pb, da, dbb := twoPeople(t, db, 30+uint64(i))
			tc.setup(t, db, pa, pb)
			harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: between(t, da, dbb)}})
			drain(t, &people.Assigner{DB: db, Rule: mergeRule})
			var left []string
			if err := db.Raw(`SELECT id FROM persons ORDER BY id`).Scan(&left).Error; err != nil {
				t.Fatal(err)
			}
			if !tc.merge {
				if len(left) != 2 || !slices.Contains(left, pa) || !slices.Contains(left, pb) {
					t.Errorf("persons %v, want %s and %s", left, pa, pb)
				}
				if personOf(t, db, "a1", 0) != pa || personOf(t, db, "b", 0) != pb {
					t.Errorf("faces moved: a1 %s, b %s", personOf(t, db, "a1", 0), personOf(t, db, "b", 0))
				}
				if c := personOf(t, db, "c", 0); c != pa && c != pb {
					t.Errorf("the bridging face is of %q", c)
				}
				return
			}
			if len(left) != 1 || left[0] != pb {
				t.Errorf("persons %v, want the named %s only", left, pb)
			}
			if n := count(t, db, `SELECT count(*) FROM persons WHERE id = ? AND name = 'Bea'`, pb); n != 1 {
				t.Error("the person left lost its name")
			}
		})
	}
}

// Two persons with faces in one picture are two people: a face bridging
// them elsewhere does not merge them.
func TestBridgingFaceKeepsPeopleSeenTogether(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	pa, pb, da, dbb := twoPeople(t, db, 23)
	harvest(t, db, "both", "c1", []fakeFace{{local: "l0", desc: da}, {local: "l1", desc: dbb}})
	drain(t, &people.Assigner{DB: db, Rule: mergeRule})
	if personOf(t, db, "both", 0) != pa || personOf(t, db, "both", 1) != pb {
		t.Fatalf("the picture of both: %s %s, want %s %s", personOf(t, db, "both", 0), personOf(t, db, "both", 1), pa, pb)
	}
	harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: between(t, da, dbb)}})
	drain(t, &people.Assigner{DB: db, Rule: mergeRule})
	if n := count(t, db, `SELECT count(*) FROM persons`); n != 2 {
		t.Errorf("%d persons, want 2", n)
	}
}

// A taught person absorbs the unnamed person a new face bridges it with
// (through its reference picture), never a named one.
func TestBridgingFaceOfTaughtPerson(t *testing.T) {
	t.Parallel()
	for _, named := range []bool{false, true} {
		db := fixture(t)
		w := peopletest.NewFaces(24, 2)
		ref, db0 := w.Face(0), w.Face(1)
		harvest(t, db, "b", "c1", []fakeFace{{local: "x", desc: db0}})
		a := &people.Assigner{DB: db, Rule: mergeRule}
		drain(t, a)
		pb := personOf(t, db, "b", 0)
		if named {
			exec(t, db, `UPDATE persons SET name = 'Bea', is_known = true WHERE id = ?`, pb)
		}
		teach(t, db, "ada", "Ada", ref)
		harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: between(t, ref, db0)}})
		drain(t, a)
		if got := personOf(t, db, "c", 0); got != "ada" {
			t.Errorf("named %v: the bridging face is of %q, want ada", named, got)
		}
		want := "ada"
		if named {
			want = pb
		}
		if got := personOf(t, db, "b", 0); got != want {
			t.Errorf("named %v: b's face is of %q, want %s", named, got, want)
		}
	}
}

// An assigner killed in the middle of a round that merged leaves both
// persons as they were; the next one merges them once.
func TestBridgingMergeKilledMidWay(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	pa, pb, da, dbb := twoPeople(t, db, 25)
	harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: between(t, da, dbb)}})
	doomed := &people.Assigner{DB: db, Rule: mergeRule}
	killMidRound(t, db, doomed)
	if n := count(t, db, `SELECT count(*) FROM persons WHERE id IN (?, ?)`, pa, pb); n != 2 {
		t.Fatalf("%d of the two persons left after a round that died", n)
	}
	drain(t, &people.Assigner{DB: db, Rule: mergeRule})
	if err := doomed.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM persons`); n != 1 {
		t.Errorf("%d persons, want 1", n)
	}
	if n := count(t, db, `SELECT sum(faces) FROM person_containers WHERE person_id = ?`, pa); n != 4 {
		t.Errorf("%d faces counted, want 4", n)
	}
}

// A "not this person" mark outlives a merge of its person: it then holds
// for the person left, so a bridging face does not merge across it.
func TestExclusionOutlivesMerge(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	pa, pb, da, dbb := twoPeople(t, db, 26)
	exec(t, db, `INSERT INTO persons (id) VALUES ('zed')`)
	exec(t, db, `INSERT INTO person_exclusions (item_id, extractor, face, person_id) VALUES ('b', 'vendor_faces', 0, 'zed')`)
	// A user merges zed into a's person ("this is also ...").
	if err := db.Transaction(func(tx *gorm.DB) error { return store.MergePeople(tx, pa, []string{"zed"}, time.Now()) }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM person_exclusions WHERE item_id = 'b' AND person_id = ?`, pa); n != 1 {
		t.Fatalf("%d marks moved to the person left, want 1", n)
	}
	harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: between(t, da, dbb)}})
	drain(t, &people.Assigner{DB: db, Rule: mergeRule})
	if n := count(t, db, `SELECT count(*) FROM persons WHERE id IN (?, ?)`, pa, pb); n != 2 {
		t.Errorf("%d of the two persons left, want 2", n)
	}
}

// A merge in the middle of a round: the items after it in the same round
// were read with the persons of before, and keep their faces on the
// person left.
func TestBridgingMergeInTheMiddleOfARound(t *testing.T) {
	t.Parallel()
	db := fixture(t)
	pa, pb, da, dbb := twoPeople(t, db, 27)
	zb := peopletest.NewFaces(27, 2).Face(1)
	harvest(t, db, "zb", "c1", []fakeFace{{local: "x", desc: zb}})
	a := &people.Assigner{DB: db, Rule: mergeRule}
	drain(t, a)
	if got := personOf(t, db, "zb", 0); got != pb {
		t.Fatalf("zb's face is of %q, want %s", got, pb)
	}
	harvest(t, db, "a3", "c1", []fakeFace{{local: "x", desc: da}})
	drain(t, a)
	// c (the bridge) and zb (harvested again) in one round, in that order.
	harvest(t, db, "c", "c1", []fakeFace{{local: "x", desc: between(t, da, dbb)}})
	harvest(t, db, "zb", "c1", []fakeFace{{local: "x", desc: zb}})
	drain(t, a)
	for _, it := range []string{"a1", "a3", "b", "c", "zb"} {
		if got := personOf(t, db, it, 0); got != pa {
			t.Errorf("%s's face is of %q, want %s", it, got, pa)
		}
	}
	if n := count(t, db, `SELECT sum(faces) FROM person_containers WHERE person_id = ?`, pa); n != 6 {
		t.Errorf("%d faces counted, want 6", n)
	}
}
