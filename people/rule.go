package people

import "sort"

// Rule decides which person a new face joins.
type Rule struct {
	// Threshold is the cosine similarity of descriptors from which a face
	// is of a person (config PEOPLE_SAME_PERSON).
	Threshold float64
	// Linkage says how a person's faces among the candidates score:
	// Nearest (the best of them) or Average (their mean).
	Linkage Linkage
	// Candidates is how many nearest faces the index proposes
	// (DefaultCandidates when 0).
	Candidates int
}

// Linkage is how a person scores from its faces' similarities.
type Linkage int

const (
	// Nearest: a person scores the similarity of its nearest face.
	Nearest Linkage = iota
	// Average: a person scores the mean similarity of its faces among
	// the candidates.
	Average
)

// DefaultThreshold is PEOPLE_SAME_PERSON's default: on the labelled set
// (testdata/README.md) the lowest threshold at which no two people are
// merged in any order of arrival (TestLabelledSet, docs/people.md).
const DefaultThreshold = 0.7

// DefaultCandidates is how many nearest faces are compared exactly.
const DefaultCandidates = 32

// SameFaceBits: a face harvested again whose code is within this many
// bits of the code it had (cosine about 0.95) is the same face.
const SameFaceBits = 24

func (r Rule) candidates() int {
	if r.Candidates > 0 {
		return r.Candidates
	}
	return DefaultCandidates
}

// Choose picks the person a face joins from the similarities of the
// candidate faces, by person: the best-scoring person allowed whose score
// reaches the threshold (ties by id); "" when none does.
func (r Rule) Choose(sims map[string][]float64, allowed func(person string) bool) (string, float64) {
	type scored struct {
		id    string
		score float64
	}
	var all []scored
	for id, s := range sims {
		if len(s) == 0 || (allowed != nil && !allowed(id)) {
			continue
		}
		var v float64
		switch r.Linkage {
		case Average:
			for _, x := range s {
				v += x
			}
			v /= float64(len(s))
		default:
			v = s[0]
			for _, x := range s[1:] {
				v = max(v, x)
			}
		}
		all = append(all, scored{id, v})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].id < all[j].id
	})
	if len(all) == 0 || all[0].score < r.Threshold {
		return "", 0
	}
	return all[0].id, all[0].score
}
