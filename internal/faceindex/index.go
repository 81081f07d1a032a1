package faceindex

import (
	"math"
	"slices"
	"sync"
)

// Defaults of an Index.
const (
	// MinTrain is the number of codes from which the index is split into
	// cells; below it a search reads every code.
	MinTrain = 4096
	// DefaultProbe is the fewest of the nearest cells a search reads; it
	// reads an eighth of the cells when that is more (measured on
	// descriptors shaped like faceres': the cell of a face of the same
	// person is among the nearest eighth for 99.5% of new faces).
	DefaultProbe = 24
	// maxCells bounds the cells (√n up to 16M codes).
	maxCells = 4096
	// trainSample is the most codes k-means learns the cells from.
	trainSample = 65536
	// trainRounds of k-means.
	trainRounds = 6
)

// Hit is a code found near the query: its id and its Distance.
type Hit struct {
	ID       int64
	Distance int
}

// Index holds codes by id (an id is unique: adding it again replaces its
// code). Searches may run while codes are added or removed.
type Index struct {
	// Probe is how many cells a search reads (when 0: DefaultProbe, or an
	// eighth of the cells when that is more).
	Probe int

	wmu sync.Mutex   // one writer (Add, Remove, training) at a time
	mu  sync.RWMutex // the structure below

	// Each cell's codes and ids side by side, so that a search reads
	// a cell's codes in one sweep of memory.
	codes [][]Code
	ids   [][]int64
	pos   map[int64]slotRef
	cents []Code // centroids; nil: one cell, not trained
	n     int

	trainedAt int // codes when the cells were last trained
}

// slotRef is where a code is: its cell and its index there.
type slotRef struct{ cell, slot int32 }

// New returns an empty index.
func New() *Index {
	return &Index{pos: map[int64]slotRef{}, codes: [][]Code{nil}, ids: [][]int64{nil}}
}

// Len is the number of codes held.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n
}

// Cells is the number of cells the codes are split into.
func (x *Index) Cells() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.codes)
}

// Add adds (or replaces) the code of id. The cells are trained again when
// the index has grown fourfold since they last were (from MinTrain codes):
// that call takes longer (seconds at a million codes), searches meanwhile
// use the cells of before.
func (x *Index) Add(id int64, c Code) {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.Lock()
	if r, ok := x.pos[id]; ok {
		x.removeAt(r)
	}
	k := x.nearestCell(c)
	x.pos[id] = slotRef{k, int32(len(x.codes[k]))}
	x.codes[k] = append(x.codes[k], c)
	x.ids[k] = append(x.ids[k], id)
	x.n++
	n := x.n
	x.mu.Unlock()
	if n >= MinTrain && n >= 4*x.trainedAt {
		x.train()
	}
}

// Remove drops the code of id, if held.
func (x *Index) Remove(id int64) {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	if r, ok := x.pos[id]; ok {
		x.removeAt(r)
	}
}

// Has reports whether id is held.
func (x *Index) Has(id int64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.pos[id]
	return ok
}

// removeAt drops the code at r: the cell's last code takes its slot. x.mu
// is held for writing.
func (x *Index) removeAt(r slotRef) {
	k, s := r.cell, r.slot
	last := int32(len(x.codes[k]) - 1)
	delete(x.pos, x.ids[k][s])
	if s != last {
		x.codes[k][s], x.ids[k][s] = x.codes[k][last], x.ids[k][last]
		x.pos[x.ids[k][s]] = slotRef{k, s}
	}
	x.codes[k], x.ids[k] = x.codes[k][:last], x.ids[k][:last]
	x.n--
}

// nearestCell is the cell of c (0 when untrained). x.mu is held.
func (x *Index) nearestCell(c Code) int32 {
	if x.cents == nil {
		return 0
	}
	return int32(nearest(x.cents, c))
}

func nearest(cents []Code, c Code) int {
	best, bestD := 0, math.MaxInt
	for i, m := range cents {
		if d := Distance(m, c); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// Search returns up to k codes nearest to q, nearest first (ties by id),
// read from the Probe cells whose centroids are nearest to q.
func (x *Index) Search(q Code, k int) []Hit {
	if k <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	top := make([]Hit, 0, k+1)
	worst := CodeBits + 1 // a code farther than this cannot enter a full top
	for _, cell := range x.probe(q) {
		ids := x.ids[cell]
		for s, c := range x.codes[cell] {
			d := Distance(c, q)
			if d > worst {
				continue
			}
			h := Hit{ID: ids[s], Distance: d}
			i, _ := slices.BinarySearchFunc(top, h, cmpHit)
			if i >= k {
				continue
			}
			top = slices.Insert(top, i, h)
			if len(top) > k {
				top = top[:k]
			}
			if len(top) == k {
				worst = top[k-1].Distance
			}
		}
	}
	return top
}

func cmpHit(a, b Hit) int {
	if a.Distance != b.Distance {
		return a.Distance - b.Distance
	}
	switch {
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// probe lists the cells a search of q reads. x.mu is held.
func (x *Index) probe(q Code) []int {
	if x.cents == nil {
		return []int{0}
	}
	n := x.Probe
	if n <= 0 {
		n = max(DefaultProbe, len(x.cents)/8)
	}
	n = min(n, len(x.cents))
	type cd struct{ cell, d int }
	best := make([]cd, 0, n+1)
	for i, m := range x.cents {
		d := Distance(m, q)
		if len(best) == n && d >= best[n-1].d {
			continue
		}
		j, _ := slices.BinarySearchFunc(best, d, func(e cd, d int) int { return e.d - d })
		best = slices.Insert(best, j, cd{i, d})
		if len(best) > n {
			best = best[:n]
		}
	}
	out := make([]int, len(best))
	for i, b := range best {
		out[i] = b.cell
	}
	return out
}

// train learns about √n cells from a sample of the codes (k-means in
// Hamming space) and files every code in its nearest cell. The heavy part
// runs without the lock searches take; x.wmu is held, so no code is added
// meanwhile.
func (x *Index) train() {
	x.mu.RLock()
	codes := make([]Code, 0, x.n)
	ids := make([]int64, 0, x.n)
	for k := range x.codes {
		codes = append(codes, x.codes[k]...)
		ids = append(ids, x.ids[k]...)
	}
	x.mu.RUnlock()
	n := len(codes)
	k := min(maxCells, max(1, int(math.Round(math.Sqrt(float64(n))))))
	cents := kmeans(codes, k)
	cell := make([]int32, n)
	parallel(n, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			cell[p] = int32(nearest(cents, codes[p]))
		}
	})
	byCell := make([][]Code, len(cents))
	idsBy := make([][]int64, len(cents))
	pos := make(map[int64]slotRef, n)
	for p, c := range cell {
		pos[ids[p]] = slotRef{c, int32(len(byCell[c]))}
		byCell[c] = append(byCell[c], codes[p])
		idsBy[c] = append(idsBy[c], ids[p])
	}
	x.mu.Lock()
	x.cents, x.codes, x.ids, x.pos = cents, byCell, idsBy, pos
	x.trainedAt = n
	x.mu.Unlock()
}

// kmeans learns k centroids from an evenly spread sample of codes: each
// centroid bit is the majority of its members' bits.
func kmeans(codes []Code, k int) []Code {
	step := max(1, len(codes)/trainSample)
	var sample []Code
	for i := 0; i < len(codes); i += step {
		sample = append(sample, codes[i])
	}
	k = min(k, len(sample))
	cents := make([]Code, k)
	for i := range cents {
		cents[i] = sample[i*len(sample)/k]
	}
	assign := make([]int32, len(sample))
	for range trainRounds {
		parallel(len(sample), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				assign[i] = int32(nearest(cents, sample[i]))
			}
		})
		counts := make([][CodeBits]int32, k)
		sizes := make([]int32, k)
		for i, c := range sample {
			a := assign[i]
			sizes[a]++
			for b := range CodeBits {
				if c[b/64]&(1<<(b%64)) != 0 {
					counts[a][b]++
				}
			}
		}
		for j := range cents {
			if sizes[j] == 0 {
				// An empty cell starts again from a code of the largest.
				big := slices.Index(sizes, slices.Max(sizes))
				for i, a := range assign {
					if a == int32(big) && sample[i] != cents[big] {
						cents[j] = sample[i]
						assign[i] = int32(j)
						sizes[big]--
						sizes[j]++
						break
					}
				}
				continue
			}
			var c Code
			for b := range CodeBits {
				if 2*counts[j][b] > sizes[j] {
					c[b/64] |= 1 << (b % 64)
				}
			}
			cents[j] = c
		}
	}
	return cents
}

// parallel runs f over [0, n) in a few chunks at once.
func parallel(n int, f func(lo, hi int)) {
	const parts = 4
	if n < 4096 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*n/parts, (i+1)*n/parts
		wg.Add(1)
		go func() { defer wg.Done(); f(lo, hi) }()
	}
	wg.Wait()
}
