package facedesc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// descriptor is a vector shaped like faceres's: mostly small positive
// numbers, a third of them 0 (its last layer is a ReLU), some larger.
func descriptor(r *rand.Rand) []float32 {
	v := make([]float32, Dims)
	for i := range v {
		if r.IntN(3) > 0 {
			v[i] = float32(r.ExpFloat64() * 0.3)
		}
	}
	n, err := Normalize(v)
	if err != nil {
		panic(err)
	}
	return n
}

// Stored as int8 with one scale, two descriptors compare as they did in
// float32, within 0.002.
func TestQuantizeKeepsCosine(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for range 200 {
		a, b := descriptor(r), descriptor(r)
		// Half of the pairs close together (one person), half apart.
		if r.IntN(2) == 0 {
			for i := range b {
				b[i] = a[i] + 0.3*b[i]
			}
			b, _ = Normalize(b)
		}
		qa, qb := Quantize(a), Quantize(b)
		if len(qa) != Size {
			t.Fatalf("%d bytes", len(qa))
		}
		da, err := Dequantize(qa)
		if err != nil {
			t.Fatal(err)
		}
		db, _ := Dequantize(qb)
		worst = math.Max(worst, math.Abs(Cosine(da, db)-Cosine(a, b)))
	}
	if worst > 0.002 {
		t.Errorf("cosine moved by up to %.4f", worst)
	}
	t.Logf("largest change of a cosine: %.5f", worst)
}

func TestNormalizeRefuses(t *testing.T) {
	t.Parallel()
	for _, v := range [][]float32{{0, 0}, {float32(math.NaN()), 1}, {float32(math.Inf(1)), 0}} {
		if _, err := Normalize(v); err == nil {
			t.Errorf("%v accepted", v)
		}
	}
	for _, n := range []int{0, 2, 5, 4 + FaceresDims - 1, 4 + FaceresDims + 1, 4 + PairDims - 1, 4 + PairDims + 1, Size - 1, Size + 1, 4 + 512, 4 + 3*FaceresDims, 4 + RecognitionDims} {
		if _, err := Dequantize(make([]byte, n)); err == nil {
			t.Errorf("descriptor of %d bytes read", n)
		}
	}
	bad := Quantize(descriptor(rand.New(rand.NewPCG(3, 4))))
	copy(bad, []byte{0, 0, 0xc0, 0x7f}) // NaN scale
	if _, err := Dequantize(bad); err == nil {
		t.Error("NaN scale read")
	}
}

// Descriptors of earlier models (faceres alone; faceres and faceres-deep
// without face-api), stored before, are read back as they were; a cosine
// of descriptors of different lengths is 0.
func TestEarlierDescriptorsStillRead(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for _, dims := range []int{FaceresDims, PairDims} {
		old := descriptor(r)[:dims]
		old, _ = Normalize(old)
		v, err := Dequantize(Quantize(old))
		if err != nil || len(v) != dims {
			t.Fatalf("%d numbers, %v", len(v), err)
		}
		if c := Cosine(v, old); c < 0.999 {
			t.Errorf("cosine with itself %.4f", c)
		}
		if c := Cosine(v, descriptor(r)); c != 0 {
			t.Errorf("cosine across lengths %v", c)
		}
	}
}

func FuzzDequantize(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	f.Add(Quantize(descriptor(r)))
	old, _ := Normalize(descriptor(r)[:FaceresDims])
	f.Add(Quantize(old))
	pair, _ := Normalize(descriptor(r)[:PairDims])
	f.Add(Quantize(pair))
	f.Add([]byte{1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Dequantize(b)
		if err != nil {
			return
		}
		if len(v) != Dims && len(v) != PairDims && len(v) != FaceresDims {
			t.Fatalf("%d numbers read from %d bytes", len(v), len(b))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) {
				t.Fatal("NaN")
			}
		}
	})
}
