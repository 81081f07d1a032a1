package people_test

import (
	"sort"
	"testing"

	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/faceindex"
	"github.com/metaharvest/metaharvest/people"
)

// TestCodesFindThePersonAtScale estimates, from the labelled set, whether
// the nearest-face index still offers a face its nearest face of the same
// person among a million faces: the assigner compares exactly only the
// first DefaultCandidates hits by code (faceindex). For each face whose
// nearest same-person face reaches the default threshold, the share of
// pairs of different people whose codes are as close is the share of an
// archive's faces that would come before it; at a million faces that must
// leave it among the candidates. An estimate (an archive's different
// people are not this set's), and a guard on the codes' centring: without
// it 73 of 120 faces pass at a million, with it 112.
func TestCodesFindThePersonAtScale(t *testing.T) {
	t.Parallel()
	faces := loadLabelled(t)
	codes := make([]faceindex.Code, len(faces))
	for i, f := range faces {
		codes[i] = faceindex.Encode(f.vec)
	}
	var apart []int // code distances of pairs of different people
	for i := range faces {
		for j := range i {
			if faces[i].person != faces[j].person {
				apart = append(apart, faceindex.Distance(codes[i], codes[j]))
			}
		}
	}
	sort.Ints(apart)
	closer := func(d int) float64 { return float64(sort.SearchInts(apart, d+1)) / float64(len(apart)) }
	for _, archive := range []float64{1e4, 1e5, 1e6} {
		found, joinable := 0, 0
		for i := range faces {
			best, bestCos := -1, 0.0
			for j := range faces {
				if j != i && faces[j].person == faces[i].person {
					if c := facedesc.Cosine(faces[i].vec, faces[j].vec); c > bestCos {
						best, bestCos = j, c
					}
				}
			}
			if best < 0 || bestCos < people.DefaultThreshold {
				continue
			}
			joinable++
			if closer(faceindex.Distance(codes[i], codes[best]))*archive < people.DefaultCandidates {
				found++
			}
		}
		t.Logf("%.0e faces: the nearest face of the person among the candidates for %d of %d faces", archive, found, joinable)
		if archive == 1e6 && float64(found) < 0.9*float64(joinable) {
			t.Errorf("at a million faces the nearest face of the person is among the candidates for %d of %d faces", found, joinable)
		}
	}
}
