package faceindex

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"sync"

	"github.com/metaharvest/metaharvest/internal/facedesc"
)

// CodeBits is the length of a Code in bits.
const CodeBits = 256

// Code is a descriptor reduced to the signs of its projections on
// CodeBits fixed random directions (Encode).
type Code [CodeBits / 64]uint64

// CodeBytes is the length of a Code as Bytes writes it.
const CodeBytes = CodeBits / 8

// Distance is the number of bits in which a and b differ (0 to CodeBits):
// about CodeBits × angle/π between their descriptors.
func Distance(a, b Code) int {
	return bits.OnesCount64(a[0]^b[0]) + bits.OnesCount64(a[1]^b[1]) + bits.OnesCount64(a[2]^b[2]) + bits.OnesCount64(a[3]^b[3])
}

// Bytes is the code as stored (little-endian words).
func (c Code) Bytes() []byte {
	b := make([]byte, CodeBytes)
	for i, w := range c {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

// FromBytes reads a code Bytes wrote.
func FromBytes(b []byte) (Code, error) {
	var c Code
	if len(b) != CodeBytes {
		return c, errors.New("face code of the wrong length")
	}
	for i := range c {
		c[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return c, nil
}

// Encode reduces a descriptor (any length; the sidecar gives
// facedesc.Dims numbers) to its code: bit j is set when the descriptor's
// projection on direction j is positive. A descriptor of facedesc.Dims
// numbers is projected less the mean descriptor (centreFile); those of
// earlier models (other lengths) as they are. The directions have entries
// of ±1 drawn from a fixed seed, so a code made today matches one stored
// years ago; the cosine of the angle between two (centred) descriptors is
// about cos(π × Distance/CodeBits).
func Encode(v []float32) Code {
	if len(v) == len(centre) {
		w := make([]float32, len(v))
		for i, x := range v {
			w[i] = x - centre[i]
		}
		v = w
	}
	p := projections(len(v))
	var c Code
	for j := range CodeBits {
		row := p[j*len(v) : (j+1)*len(v)]
		var s float32
		for i, x := range v {
			s += x * row[i]
		}
		if s > 0 {
			c[j/64] |= 1 << (j % 64)
		}
	}
	return c
}

// centreFile is the mean descriptor (facedesc.Dims float32,
// little-endian) of 131 faces the vision sidecar described in 59 other
// pictures than the labelled set's (Human 3.3.6's samples/in: its group
// photographs, Solvay 1927, stock models, CGI models; MIT, as
// people/testdata/README.md says), made with the descriptor of three
// models. Those descriptors share a large part: their mean has length
// 0.87, so that two different people's descriptors are about 0.78 alike
// and their codes differ in only a fifth of the bits. Codes are taken of
// the descriptor minus this mean: on the labelled set, the nearest face of
// the same person is then among a million faces' first 32 hits for about
// 112 of 120 faces instead of 73 (TestCodesFindThePersonAtScale in
// package people estimates it).
//
//go:embed centre.f32
var centreFile []byte

// centre is centreFile's numbers.
var centre = func() []float32 {
	if len(centreFile) != 4*facedesc.Dims {
		panic("faceindex: centre.f32 does not hold facedesc.Dims numbers")
	}
	c := make([]float32, facedesc.Dims)
	for i := range c {
		c[i] = math.Float32frombits(binary.LittleEndian.Uint32(centreFile[4*i:]))
	}
	return c
}()

var (
	projMu sync.Mutex
	projBy = map[int][]float32{}
)

// projections are the directions for descriptors of n numbers, made
// once from a fixed seed (splitmix64): each has n/2 entries +1 and n/2
// entries -1, in an order of its own. Their entries summing to 0 makes a
// code blind to the part all descriptors share along (1, 1, ..., 1): faceres
// numbers are never negative, so that part is large, and without it about
// half the bits of every code would be alike, and cells lopsided.
func projections(n int) []float32 {
	projMu.Lock()
	defer projMu.Unlock()
	if p, ok := projBy[n]; ok {
		return p
	}
	state := uint64(0x6d657461_68617276) // "metaharv"
	next := func() uint64 {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	p := make([]float32, CodeBits*n)
	for j := range CodeBits {
		row := p[j*n : (j+1)*n]
		for i := range row {
			row[i] = 1
			if i >= n/2 {
				row[i] = -1
			}
		}
		for i := n - 1; i > 0; i-- {
			k := int(next() % uint64(i+1))
			row[i], row[k] = row[k], row[i]
		}
	}
	projBy[n] = p
	return p
}
