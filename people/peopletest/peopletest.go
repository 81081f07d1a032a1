// Package peopletest makes face descriptors for tests of people across
// the archive, shaped like faceres' (numbers never negative, about half of
// them 0): two people about 0.3 alike, two faces of one person about 0.85.
// The labelled set of real faces is people/testdata; these are for tests
// of the plumbing (assignment, API, pages), where a clear margin is wanted.
package peopletest

import (
	"math"
	"math/rand/v2"

	"github.com/metaharvest/metaharvest/internal/facedesc"
)

// Faces draws faces of a fixed set of people.
type Faces struct {
	rng    *rand.Rand
	people [][]float64
}

// NewFaces makes n people from seed, with descriptors of facedesc.Dims
// numbers.
func NewFaces(seed uint64, n int) *Faces { return NewFacesDims(seed, n, facedesc.Dims) }

// NewFacesDims makes n people from seed, with descriptors of dims numbers
// (facedesc.FaceresDims: faces described before the ensemble).
func NewFacesDims(seed uint64, n, dims int) *Faces {
	w := &Faces{rng: rand.New(rand.NewPCG(seed, 7))}
	for range n {
		p := make([]float64, dims)
		for i := range p {
			p[i] = w.rng.NormFloat64()
		}
		w.people = append(w.people, p)
	}
	return w
}

// Face is a new face of person p (0 to n-1), in the stored form
// (facedesc.Quantize).
func (w *Faces) Face(p int) []byte {
	v := make([]float32, len(w.people[p]))
	for i := range v {
		v[i] = float32(math.Max(0, w.people[p][i]+0.35*w.rng.NormFloat64()))
	}
	n, err := facedesc.Normalize(v)
	if err != nil {
		panic(err)
	}
	return facedesc.Quantize(n)
}
