package faceindex

import (
	"math"
	"math/rand/v2"
	"testing"
)

// world makes descriptors shaped like faceres': every vector leans on a
// common direction (its numbers are mostly positive), people are apart
// (cosine about 0.3) and a person's faces are close (about 0.8).
type world struct {
	rng    *rand.Rand
	dims   int
	common []float64
	people [][]float64
}

func newWorld(seed uint64, dims, people int) *world {
	w := &world{rng: rand.New(rand.NewPCG(seed, 1)), dims: dims}
	w.common = w.gauss()
	for range people {
		p := w.gauss()
		for i := range p {
			p[i] = 0.55*w.common[i] + 0.84*p[i]
		}
		w.people = append(w.people, unit(p))
	}
	return w
}

func (w *world) gauss() []float64 {
	v := make([]float64, w.dims)
	for i := range v {
		v[i] = w.rng.NormFloat64()
	}
	return unit(v)
}

// face is a new face of person p.
func (w *world) face(p int) []float32 {
	n := w.gauss()
	out := make([]float32, w.dims)
	var s float64
	for i := range out {
		x := w.people[p][i] + 0.5*n[i]
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range out {
		out[i] = float32((w.people[p][i] + 0.5*n[i]) / s)
	}
	return out
}

func unit(v []float64) []float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] /= s
	}
	return v
}

func cosine(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

func TestCodeDistanceFollowsTheAngle(t *testing.T) {
	w := newWorld(1, 1024, 2)
	a, b, c := w.face(0), w.face(0), w.face(1)
	same, other := Distance(Encode(a), Encode(b)), Distance(Encode(a), Encode(c))
	for _, tc := range []struct {
		name string
		cos  float64
		d    int
	}{{"same person", cosine(a, b), same}, {"two people", cosine(a, c), other}} {
		want := CodeBits * math.Acos(tc.cos) / math.Pi
		if math.Abs(float64(tc.d)-want) > 30 {
			t.Errorf("%s: cosine %.2f, %d bits differ, expected about %.0f", tc.name, tc.cos, tc.d, want)
		}
	}
	if same >= other {
		t.Errorf("faces of one person differ in %d bits, of two people in %d", same, other)
	}
	if again := Encode(append([]float32(nil), a...)); Encode(a) != again {
		t.Error("Encode is not deterministic")
	}
	back, err := FromBytes(Encode(a).Bytes())
	if err != nil || back != Encode(a) {
		t.Errorf("FromBytes(Bytes) = %v, %v", back, err)
	}
	if _, err := FromBytes(make([]byte, 7)); err == nil {
		t.Error("FromBytes took 7 bytes")
	}
}

// TestSearchFindsThePerson: once trained into cells, the index returns
// among its first hits a face of the person a new face is of, for as many
// new faces as a scan of every code does, and the nearest face by cosine
// is among them nearly always.
func TestSearchFindsThePerson(t *testing.T) {
	const dims, people, perPerson = 64, 2000, 4
	w := newWorld(2, dims, people)
	x := New()
	vecs := map[int64][]float32{}
	owner := map[int64]int{}
	var id int64
	for range perPerson {
		for p := range people {
			id++
			v := w.face(p)
			vecs[id], owner[id] = v, p
			x.Add(id, Encode(v))
		}
	}
	if x.Len() != people*perPerson {
		t.Fatalf("Len = %d", x.Len())
	}
	if x.Cells() < 60 {
		t.Fatalf("%d codes in %d cells: not trained", x.Len(), x.Cells())
	}
	const queries = 200
	var person, nearest, scanned int
	for q := range queries {
		p := (q * 13) % people
		v := w.face(p)
		var best int64
		bestCos := -2.0
		for id, u := range vecs {
			if c := cosine(v, u); c > bestCos {
				best, bestCos = id, c
			}
		}
		has := func(hits []Hit) (samePerson, bestFace bool) {
			for _, h := range hits {
				samePerson = samePerson || owner[h.ID] == p
				bestFace = bestFace || h.ID == best
			}
			return
		}
		x.Probe = 0
		sp, bf := has(x.Search(Encode(v), 32))
		if sp {
			person++
		}
		if bf {
			nearest++
		}
		x.Probe = x.Cells()
		if sp, _ := has(x.Search(Encode(v), 32)); sp {
			scanned++
		}
	}
	t.Logf("a face of the person in the first 32 hits: %d/%d (scanning every code: %d); the nearest face: %d", person, queries, scanned, nearest)
	if person < scanned-queries/50 || person < queries*95/100 {
		t.Errorf("a face of the person is among the first 32 hits for %d of %d new faces, scanning every code %d", person, queries, scanned)
	}
	if nearest < queries*9/10 {
		t.Errorf("the nearest face is among the first 32 hits for %d of %d new faces", nearest, queries)
	}
}

// TestAddRemoveKeepTheCells: codes removed are never returned, codes
// replaced are found under their new code, and every code is in exactly
// its cell after many moves.
func TestAddRemoveKeepTheCells(t *testing.T) {
	w := newWorld(3, 64, 50)
	x := New()
	codes := map[int64]Code{}
	for i := int64(1); i <= 6000; i++ {
		c := Encode(w.face(int(i % 50)))
		x.Add(i, c)
		codes[i] = c
	}
	for i := int64(1); i <= 6000; i += 3 {
		x.Remove(i)
		delete(codes, i)
	}
	for i := int64(2); i <= 6000; i += 7 {
		c := Encode(w.face(int((i + 1) % 50)))
		x.Add(i, c) // replaces, or adds back a removed one
		codes[i] = c
	}
	x.Remove(999999) // not held
	if x.Len() != len(codes) {
		t.Fatalf("Len = %d, want %d", x.Len(), len(codes))
	}
	x.mu.RLock()
	seen := 0
	for k := range x.codes {
		if len(x.codes[k]) != len(x.ids[k]) {
			t.Fatalf("cell %d: %d codes, %d ids", k, len(x.codes[k]), len(x.ids[k]))
		}
		for s, id := range x.ids[k] {
			if r := x.pos[id]; r.cell != int32(k) || r.slot != int32(s) {
				t.Fatalf("id %d filed in cell %d slot %d, says %v", id, k, s, r)
			}
			if x.codes[k][s] != codes[id] {
				t.Fatalf("id %d holds the wrong code", id)
			}
			seen++
		}
	}
	x.mu.RUnlock()
	if seen != len(codes) || len(x.pos) != len(codes) {
		t.Fatalf("%d codes in cells, %d positions, want %d", seen, len(x.pos), len(codes))
	}
	for id, c := range codes {
		if !x.Has(id) {
			t.Fatalf("id %d lost", id)
		}
		if hits := x.Search(c, 1); len(hits) == 0 || hits[0].Distance != 0 {
			t.Fatalf("code of %d not found again: %v", id, hits)
		}
		if id > 300 {
			break
		}
	}
	if x.Has(1) || x.Has(4) {
		t.Error("removed ids still held")
	}
}

func BenchmarkEncode(b *testing.B) {
	v := newWorld(4, 1024, 1).face(0)
	for b.Loop() {
		Encode(v)
	}
}
