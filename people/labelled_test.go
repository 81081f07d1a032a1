package people_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/people"
)

type labelledFace struct {
	person, variant string
	vec             []float32
}

func loadLabelled(t *testing.T) []labelledFace {
	t.Helper()
	raw, err := os.ReadFile("testdata/labelled.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct{ Person, Variant, Descriptor string }
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	var out []labelledFace
	for _, r := range rows {
		b, err := base64.StdEncoding.DecodeString(r.Descriptor)
		if err != nil {
			t.Fatal(err)
		}
		v, err := facedesc.Dequantize(b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, labelledFace{r.Person, r.Variant, v})
	}
	return out
}

// grouping assigns the faces one after the other in order, as the
// assigner does (each face against the faces placed before it, by the
// rule), and returns the share of faces in the largest group of their
// person and the number of pairs of different people sharing a group.
func grouping(faces []labelledFace, sim [][]float64, rule people.Rule, order []int) (grouped float64, merged int) {
	group := map[int]string{}
	next := 0
	for _, i := range order {
		type cand struct {
			sim float64
			j   int
		}
		var cs []cand
		for j := range group {
			cs = append(cs, cand{sim[i][j], j})
		}
		sort.Slice(cs, func(a, b int) bool { return cs[a].sim > cs[b].sim })
		if len(cs) > people.DefaultCandidates {
			cs = cs[:people.DefaultCandidates]
		}
		sims := map[string][]float64{}
		for _, c := range cs {
			sims[group[c.j]] = append(sims[group[c.j]], c.sim)
		}
		p, _ := rule.Choose(sims, nil)
		if p == "" {
			p = fmt.Sprint(next)
			next++
		}
		group[i] = p
	}
	return score(faces, group)
}

// centered subtracts mean from every descriptor and normalises it again.
func centered(faces []labelledFace, mean []float64) []labelledFace {
	out := make([]labelledFace, len(faces))
	for i, f := range faces {
		v := make([]float32, len(f.vec))
		var n float64
		for k := range v {
			x := float64(f.vec[k]) - mean[k]
			v[k] = float32(x)
			n += x * x
		}
		n = math.Sqrt(n)
		for k := range v {
			v[k] = float32(float64(v[k]) / n)
		}
		out[i] = labelledFace{f.person, f.variant, v}
	}
	return out
}

// meanOf is the mean descriptor of the faces keep keeps (all when nil).
func meanOf(faces []labelledFace, keep func(labelledFace) bool) []float64 {
	m := make([]float64, len(faces[0].vec))
	n := 0
	for _, f := range faces {
		if keep != nil && !keep(f) {
			continue
		}
		n++
		for k, x := range f.vec {
			m[k] += float64(x)
		}
	}
	for k := range m {
		m[k] /= float64(n)
	}
	return m
}

// groupingMerge is grouping where a face within the threshold of several
// persons also merges them.
func groupingMerge(faces []labelledFace, sim [][]float64, th float64, order []int) (grouped float64, merged int) {
	group := map[int]int{}
	next := 0
	for _, i := range order {
		type cand struct {
			sim float64
			j   int
		}
		var cs []cand
		for j := range group {
			cs = append(cs, cand{sim[i][j], j})
		}
		hit := map[int]bool{}
		best, bestSim := -1, -2.0
		for _, c := range cs {
			if c.sim >= th {
				hit[group[c.j]] = true
				if c.sim > bestSim {
					best, bestSim = group[c.j], c.sim
				}
			}
		}
		if best < 0 {
			group[i] = next
			next++
			continue
		}
		group[i] = best
		for j, g := range group {
			if hit[g] {
				group[j] = best
			}
		}
	}
	return score(faces, group)
}

// cosine of two unit vectors.
// similarities is the matrix of similarity between every two faces, worked
// out once for the many orders of arrival a rule is measured in.
func similarities(faces []labelledFace, similarity func(a, b []float32) float64) [][]float64 {
	out := make([][]float64, len(faces))
	for i := range faces {
		out[i] = make([]float64, len(faces))
		for j := range faces {
			out[i][j] = similarity(faces[i].vec, faces[j].vec)
		}
	}
	return out
}

// score is the share of faces in the largest group of their person, and
// the number of pairs of different people sharing a group.
func score[G comparable](faces []labelledFace, group map[int]G) (grouped float64, merged int) {
	byPerson := map[string]map[G]int{}
	members := map[G]map[string]bool{}
	for i, g := range group {
		if byPerson[faces[i].person] == nil {
			byPerson[faces[i].person] = map[G]int{}
		}
		byPerson[faces[i].person][g]++
		if members[g] == nil {
			members[g] = map[string]bool{}
		}
		members[g][faces[i].person] = true
	}
	n := 0
	for _, gs := range byPerson {
		best := 0
		for _, c := range gs {
			best = max(best, c)
		}
		n += best
	}
	for _, m := range members {
		merged += len(m) * (len(m) - 1) / 2
	}
	return float64(n) / float64(len(faces)), merged
}

func cosine(a, b []float32) float64 {
	var s float64
	for k := range a {
		s += float64(a[k]) * float64(b[k])
	}
	return s
}

// TestLabelledSet measures the rule on the labelled set (testdata/README.md)
// in 40 orders of arrival, for several thresholds and both linkages, and
// holds the default to what docs/people.md says: no two people merged in
// any order.
func TestLabelledSet(t *testing.T) {
	t.Parallel()
	faces := loadLabelled(t)
	names := map[string]bool{}
	for _, f := range faces {
		names[f.person] = true
	}
	if len(faces) < 80 || len(names) < 10 {
		t.Fatalf("%d faces of %d people", len(faces), len(names))
	}
	rng := rand.New(rand.NewPCG(44, 44))
	orders := make([][]int, 40)
	for i := range orders {
		orders[i] = rng.Perm(len(faces))
	}
	raw := similarities(faces, facedesc.Cosine)
	measure := func(rule people.Rule) (meanGrouped, minGrouped float64, maxMerged int) {
		minGrouped = 1
		for _, o := range orders {
			g, m := grouping(faces, raw, rule, o)
			meanGrouped += g / float64(len(orders))
			minGrouped = min(minGrouped, g)
			maxMerged = max(maxMerged, m)
		}
		return
	}
	var table strings.Builder
	fmt.Fprintf(&table, "threshold linkage  grouped (mean, worst order)  pairs of people merged (worst order)\n")
	for _, link := range []people.Linkage{people.Nearest, people.Average} {
		for _, th := range []float64{0.5, 0.55, 0.6, 0.65, 0.7, 0.75} {
			mean, worst, merged := measure(people.Rule{Threshold: th, Linkage: link})
			fmt.Fprintf(&table, "%.2f      %-8s %.3f %.3f                  %d\n", th, map[people.Linkage]string{people.Nearest: "nearest", people.Average: "average"}[link], mean, worst, merged)
		}
	}
	// Other rules (docs/people.md): descriptors centred on the archive's
	// mean (here the set's own mean: no label is used), or on the mean of
	// half the people only (an archive of other people; the worst of 5
	// splits), and a face within the threshold of several persons merging
	// them (single linkage: order does not matter).
	var names2 []string
	for n := range names {
		names2 = append(names2, n)
	}
	sort.Strings(names2)
	own := centered(faces, meanOf(faces, nil))
	var halves [][]labelledFace
	for split := range 5 {
		perm := rand.New(rand.NewPCG(uint64(split), 9)).Perm(len(names2))
		half := map[string]bool{}
		for _, k := range perm[:len(names2)/2] {
			half[names2[k]] = true
		}
		halves = append(halves, centered(faces, meanOf(faces, func(f labelledFace) bool { return half[f.person] })))
	}
	other := func(fs []labelledFace, th float64, merge bool) (meanGrouped, minGrouped float64, maxMerged int) {
		minGrouped = 1
		mergeSim, ruleSim := similarities(fs, cosine), similarities(fs, facedesc.Cosine)
		for _, o := range orders {
			var g float64
			var m int
			if merge {
				g, m = groupingMerge(fs, mergeSim, th, o)
			} else {
				g, m = grouping(fs, ruleSim, people.Rule{Threshold: th}, o)
			}
			meanGrouped += g / float64(len(orders))
			minGrouped = min(minGrouped, g)
			maxMerged = max(maxMerged, m)
		}
		return
	}
	for _, merge := range []bool{false, true} {
		rule := map[bool]string{false: "nearest", true: "nearest+merge"}[merge]
		if merge {
			for _, th := range []float64{0.65, 0.7} {
				mean, worst, merged := other(faces, th, true)
				fmt.Fprintf(&table, "%.2f      %s (raw) %.3f %.3f  %d\n", th, rule, mean, worst, merged)
			}
		}
		for _, th := range []float64{0.35, 0.4, 0.45} {
			mean, worst, merged := other(own, th, merge)
			fmt.Fprintf(&table, "%.2f      %s, centred (own mean) %.3f %.3f  %d\n", th, rule, mean, worst, merged)
			hm, hw, hmerged := 1.0, 1.0, 0
			for _, h := range halves {
				m, w, mg := other(h, th, merge)
				hm, hw, hmerged = min(hm, m), min(hw, w), max(hmerged, mg)
			}
			fmt.Fprintf(&table, "%.2f      %s, centred (half's mean, worst split) %.3f %.3f  %d\n", th, rule, hm, hw, hmerged)
		}
	}
	t.Logf("%d faces of %d people\n%s", len(faces), len(names), table.String())
	mean, _, merged := measure(people.Rule{Threshold: people.DefaultThreshold})
	if merged != 0 {
		t.Errorf("at the default threshold %.2f, %d pairs of different people are merged", people.DefaultThreshold, merged)
	}
	if mean < 0.8 {
		t.Errorf("at the default threshold %.2f, %.3f of the faces are grouped with their person", people.DefaultThreshold, mean)
	}
}
