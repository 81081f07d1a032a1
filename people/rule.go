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
	// MergeBridged: a new face that reaches the threshold with faces of
	// several persons makes them one person (config PEOPLE_MERGE_BRIDGED;
	// Decide says which, the Assigner leaves out the persons users told
	// apart, docs/people.md).
	MergeBridged bool
	// MergeThreshold is the similarity a bridging face must reach with a
	// person's nearest face for that person to be merged (config
	// PEOPLE_MERGE_SAME_PERSON; Threshold when below it).
	MergeThreshold float64
	// MergeSupport is how many of a person's faces among the candidates
	// the bridging face must reach the merge threshold with (all of them
	// when the person has fewer there; 1 when 0).
	MergeSupport int
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
const DefaultThreshold = 0.88

// DefaultMergeBridged is PEOPLE_MERGE_BRIDGED's default (docs/people.md).
const DefaultMergeBridged = true

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

// Decision is what a new face does: join Person ("" a new person) and,
// when the face bridges persons, make the persons Merge one with Person.
type Decision struct {
	Person string
	Score  float64
	// Merge are the other persons the face bridges, best first.
	Merge []string
}

// Decide is Choose, and, with MergeBridged, the persons the face bridges
// (Bridged), provided the person it joins is reached as Bridged requires.
func (r Rule) Decide(sims map[string][]float64, allowed func(person string) bool) Decision {
	p, score := r.Choose(sims, allowed)
	d := Decision{Person: p, Score: score}
	if p != "" && r.MergeBridged && r.bridges(sims[p]) {
		d.Merge = r.Bridged(sims, allowed, p)
	}
	return d
}

// Bridged lists, best first, the allowed persons other than person whose
// faces among the candidates the face reaches the merge threshold with
// (at least MergeSupport of them, or all when fewer); nil without
// MergeBridged.
func (r Rule) Bridged(sims map[string][]float64, allowed func(person string) bool, person string) []string {
	if !r.MergeBridged {
		return nil
	}
	var out []string
	best := map[string]float64{}
	for id, s := range sims {
		if id == person || (allowed != nil && !allowed(id)) || !r.bridges(s) {
			continue
		}
		best[id] = s[0]
		for _, x := range s[1:] {
			best[id] = max(best[id], x)
		}
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if best[a] != best[b] {
			return best[a] > best[b]
		}
		return a < b
	})
	return out
}

// bridges reports whether a person's similarities (its faces among the
// candidates) are enough for the face to merge it.
func (r Rule) bridges(s []float64) bool {
	th := max(r.Threshold, r.MergeThreshold)
	need := min(max(1, r.MergeSupport), len(s))
	n := 0
	for _, x := range s {
		if x >= th {
			n++
		}
	}
	return len(s) > 0 && n >= need
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
