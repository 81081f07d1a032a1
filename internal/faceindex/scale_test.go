package faceindex

import (
	"math/rand/v2"
	"os"
	"sort"
	"testing"
	"time"
)

// TestMillionCodes (FACEINDEX_SCALE=1): lookups among a million codes of
// 100k people (10 faces each, ~20% of bits flipped between two faces of
// one person), p50 and p99, and whether a face of the person is found.
// A figure, not a check: it runs only when asked (make bench has the
// assigner's figures through Postgres).
func TestMillionCodes(t *testing.T) {
	if os.Getenv("FACEINDEX_SCALE") == "" {
		t.Skip("FACEINDEX_SCALE=1 to run")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	flip := func(c Code, p float64) Code {
		for b := range CodeBits {
			if rng.Float64() < p {
				c[b/64] ^= 1 << (b % 64)
			}
		}
		return c
	}
	const people = 100_000
	pc := make([]Code, people)
	for i := range pc {
		pc[i] = Code{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()}
	}
	x := New()
	start := time.Now()
	for f := range 10 * people {
		x.Add(int64(f), flip(pc[f%people], 0.1))
	}
	t.Logf("%d codes in %d cells in %s", x.Len(), x.Cells(), time.Since(start).Round(time.Millisecond))
	var ts []time.Duration
	found := 0
	for q := range 500 {
		p := q * 97 % people
		c := flip(pc[p], 0.1)
		t0 := time.Now()
		hits := x.Search(c, 32)
		ts = append(ts, time.Since(t0))
		for _, h := range hits {
			if int(h.ID)%people == p {
				found++
				break
			}
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	t.Logf("lookup p50 %s p99 %s; a face of the person among the first 32 for %d of 500", ts[250], ts[495], found)
}
