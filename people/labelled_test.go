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
	file := "testdata/labelled.json"
	if f := os.Getenv("LABELLED_SET"); f != "" {
		file = f // another set of descriptors in the same format
	}
	raw, err := os.ReadFile(file)
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
// assigner does (each face against the DefaultCandidates nearest faces
// placed before it, through rule.Decide, merging the persons it bridges
// when the rule merges), and returns the share of faces in the largest
// group of their person, the number of pairs of different people sharing
// a group, and the merges of bridged persons as they happened.
func grouping(faces []labelledFace, sim [][]float64, rule people.Rule, order []int) (grouped float64, merged int, merges []bridge) {
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
		d := rule.Decide(sims, nil)
		if d.Person == "" {
			d.Person = fmt.Sprint(next)
			next++
		}
		if len(d.Merge) > 0 {
			into := map[string]bool{faces[i].person: true}
			for j, g := range group {
				if g == d.Person {
					into[faces[j].person] = true
				}
			}
			b := bridge{archive: len(group)}
			from := map[string]bool{}
			for _, m := range d.Merge {
				from[m] = true
			}
			for j, g := range group {
				if from[g] {
					b.wrong = b.wrong || !into[faces[j].person]
					group[j] = d.Person
				}
			}
			merges = append(merges, b)
		}
		group[i] = d.Person
	}
	grouped, merged = score(faces, group)
	return grouped, merged, merges
}

// bridge is a merge of persons bridged by a face: how many faces were
// placed before it, and whether it put a different person's faces with
// the face's person.
type bridge struct {
	archive int
	wrong   bool
}

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

// TestLabelledSet measures the rule on the labelled set (testdata/README.md;
// LABELLED_SET names another file of that format) in 40 orders of arrival,
// for several thresholds, both linkages and the merging of bridged persons,
// and holds the production rule (defaultRule) to what docs/people.md says:
// no two people merged in any order.
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
	type result struct {
		mean, worst float64
		merged      int
		merges      []bridge
	}
	measureOn := func(sim [][]float64, rule people.Rule) (r result) {
		r.worst = 1
		for _, o := range orders {
			g, m, b := grouping(faces, sim, rule, o)
			r.mean += g / float64(len(orders))
			r.worst = min(r.worst, g)
			r.merged = max(r.merged, m)
			r.merges = append(r.merges, b...)
		}
		return r
	}
	measure := func(rule people.Rule) result { return measureOn(raw, rule) }
	var table strings.Builder
	fmt.Fprintf(&table, "threshold rule  grouped (mean, worst order)  pairs of people merged (worst order)  bridged merges (wrong)\n")
	row := func(th float64, name string, r result) {
		wrong := 0
		for _, b := range r.merges {
			if b.wrong {
				wrong++
			}
		}
		fmt.Fprintf(&table, "%.2f      %-40s %.3f %.3f  %d  %d (%d)\n", th, name, r.mean, r.worst, r.merged, len(r.merges), wrong)
	}
	// Thresholds around the default: the scale of the cosine is the
	// descriptor's (docs/people.md has the figures of earlier ones).
	var around []float64
	for _, d := range []float64{-0.1, -0.05, -0.02, 0, 0.02, 0.05} {
		around = append(around, math.Round((people.DefaultThreshold+d)*100)/100)
	}
	for _, link := range []people.Linkage{people.Nearest, people.Average} {
		for _, th := range around {
			row(th, map[people.Linkage]string{people.Nearest: "nearest", people.Average: "average"}[link],
				measure(people.Rule{Threshold: th, Linkage: link}))
		}
	}
	// Merging the persons a face bridges, and stricter conditions for it:
	// a merge threshold above the threshold, or the face reaching 2 faces
	// of each person among the candidates (when it has 2 there).
	for _, th := range around {
		row(th, "nearest+merge", measure(people.Rule{Threshold: th, MergeBridged: true}))
		for _, up := range []float64{0.02, 0.05} {
			row(th, fmt.Sprintf("nearest+merge from %.2f", th+up),
				measure(people.Rule{Threshold: th, MergeBridged: true, MergeThreshold: th + up}))
		}
		row(th, "nearest+merge, 2 faces of each", measure(people.Rule{Threshold: th, MergeBridged: true, MergeSupport: 2}))
		row(th, fmt.Sprintf("nearest+merge from %.2f, 2 faces of each", th+0.02),
			measure(people.Rule{Threshold: th, MergeBridged: true, MergeThreshold: th + 0.02, MergeSupport: 2}))
	}
	// How often the production rule merges bridged persons as the
	// archive grows (faces placed before the bridging face), over the 40
	// orders, and how close different people come: the share of pairs of
	// faces of different people at or above each similarity.
	prod := measure(defaultRule)
	bins := []int{len(faces) / 4, len(faces) / 2, 3 * len(faces) / 4, len(faces)}
	fmt.Fprintf(&table, "production rule %+v: bridged merges by faces already placed (all orders; wrong ones)\n", defaultRule)
	lo := 0
	for _, hi := range bins {
		n, wrong := 0, 0
		for _, b := range prod.merges {
			if b.archive >= lo && b.archive < hi {
				n++
				if b.wrong {
					wrong++
				}
			}
		}
		fmt.Fprintf(&table, "  %2d-%2d faces: %.2f a face arriving (%d wrong)\n", lo, hi-1, float64(n)/float64(len(orders)*(hi-lo)), wrong)
		lo = hi
	}
	pairs := 0
	above := map[float64]int{}
	steps := []float64{around[0] - 0.05, around[0], around[1], around[2], around[3], around[5]}
	for i := range faces {
		for j := range i {
			if faces[i].person == faces[j].person {
				continue
			}
			pairs++
			for _, x := range steps {
				if raw[i][j] >= x {
					above[x]++
				}
			}
		}
	}
	fmt.Fprintf(&table, "pairs of faces of different people at or above (of %d):", pairs)
	for _, x := range steps {
		fmt.Fprintf(&table, " %.2f: %d", x, above[x])
	}
	t.Logf("%d faces of %d people\n%s", len(faces), len(names), table.String())
	if prod.merged != 0 {
		t.Errorf("the production rule %+v merges %d pairs of different people", defaultRule, prod.merged)
	}
	// Issue 44's goal: 0.95 of the faces grouped with their person.
	if prod.mean < 0.95 {
		t.Errorf("the production rule %+v groups %.3f of the faces with their person", defaultRule, prod.mean)
	}
}

// defaultRule is the rule of the default configuration (worker.go builds
// it from PEOPLE_SAME_PERSON and PEOPLE_MERGE_BRIDGED).
var defaultRule = people.Rule{Threshold: people.DefaultThreshold, MergeBridged: people.DefaultMergeBridged}
