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

	codes []Code
	ids   []int64
	pos   map[int64]int32 // id -> position in codes
	cell  []int32         // position -> its cell
	slot  []int32         // position -> its index in cells[cell]
	cells [][]int32       // cell -> positions
	cents []Code          // centroids; nil: one cell, not trained

	trainedAt int // codes when the cells were last trained
}

// New returns an empty index.
func New() *Index {
	return &Index{pos: map[int64]int32{}, cells: [][]int32{nil}}
}

// Len is the number of codes held.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.codes)
}

// Cells is the number of cells the codes are split into.
func (x *Index) Cells() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.cells)
}

// Add adds (or replaces) the code of id. The cells are trained again when
// the index has grown fourfold since they last were (from MinTrain codes):
// that call takes longer (seconds at a million codes), searches meanwhile
// use the cells of before.
func (x *Index) Add(id int64, c Code) {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.mu.Lock()
	if p, ok := x.pos[id]; ok {
		x.removeAt(p)
	}
	p := int32(len(x.codes))
	x.codes = append(x.codes, c)
	x.ids = append(x.ids, id)
	x.pos[id] = p
	k := x.nearestCell(c)
	x.cell = append(x.cell, k)
	x.slot = append(x.slot, int32(len(x.cells[k])))
	x.cells[k] = append(x.cells[k], p)
	n := len(x.codes)
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
	if p, ok := x.pos[id]; ok {
		x.removeAt(p)
	}
}

// Has reports whether id is held.
func (x *Index) Has(id int64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.pos[id]
	return ok
}

// removeAt drops position p: the last code moves into its place. x.mu is
// held for writing.
func (x *Index) removeAt(p int32) {
	// Out of its cell: the cell's last member takes its slot.
	k, s := x.cell[p], x.slot[p]
	members := x.cells[k]
	moved := members[len(members)-1]
	members[s] = moved
	x.slot[moved] = s
	x.cells[k] = members[:len(members)-1]
	delete(x.pos, x.ids[p])
	last := int32(len(x.codes) - 1)
	if p != last {
		// The last position moves to p.
		x.codes[p], x.ids[p], x.cell[p], x.slot[p] = x.codes[last], x.ids[last], x.cell[last], x.slot[last]
		x.pos[x.ids[p]] = p
		x.cells[x.cell[p]][x.slot[p]] = p
	}
	x.codes, x.ids, x.cell, x.slot = x.codes[:last], x.ids[:last], x.cell[:last], x.slot[:last]
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
	consider := func(p int32) {
		d := Distance(x.codes[p], q)
		if len(top) == k && d > top[k-1].Distance {
			return
		}
		h := Hit{ID: x.ids[p], Distance: d}
		i, _ := slices.BinarySearchFunc(top, h, cmpHit)
		top = slices.Insert(top, i, h)
		if len(top) > k {
			top = top[:k]
		}
	}
	for _, k := range x.probe(q) {
		for _, p := range x.cells[k] {
			consider(p)
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
	codes := slices.Clone(x.codes)
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
	cells := make([][]int32, len(cents))
	slot := make([]int32, n)
	for p, c := range cell {
		slot[p] = int32(len(cells[c]))
		cells[c] = append(cells[c], int32(p))
	}
	x.mu.Lock()
	x.cents, x.cell, x.slot, x.cells = cents, cell, slot, cells
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
