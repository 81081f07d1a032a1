package safemd

import (
	"runtime"
	"strings"
	"testing"
)

// Large hostile inputs cost Sanitize work in proportion to their size:
// four times the input allocates about four times the bytes (up to twice
// that, as buffers grow by doubling), where an algorithm quadratic in it (a
// rescan of the rest of the text at every "](", a tokenizer restarted at
// every tag) would allocate sixteen times. Counted
// in bytes allocated, which is the same on every run, not in wall time,
// which other tests change. Not parallel: TotalAlloc counts the whole
// process, and the package's parallel tests wait while a sequential test
// runs.
func TestSanitizeLargeInputsAreLinear(t *testing.T) {
	for _, c := range []struct {
		head, piece, tail string
		n                 int
	}{ // "](" and "]:" larger: each costs up to maxDestination, a constant that small inputs would show as growth
		{"", "<textarea>", "", 1250},
		{"", "[a](javascript:x) ", "", 5000},
		{"", "<<a>", "", 5000},
		{"", "](", "", 50000},
		{"", "<b onclick=x>", "", 2500},
		{"", "(", "", 25000},
		{"", "]:", "", 50000},
		{"", "](\n> ", "", 7500},
		{"", "](< ", "", 10000},
		{"](", " \n>", "javascript:x)", 25000},
	} {
		alloc := func(n int) uint64 {
			in := c.head + strings.Repeat(c.piece, n) + c.tail
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out := Sanitize(in)
			runtime.ReadMemStats(&after)
			safe(t, in[:20], out)
			return after.TotalAlloc - before.TotalAlloc
		}
		one, four := alloc(c.n), alloc(4*c.n)
		t.Logf("%q x %d: %d KiB, four times as many: %d KiB (x%.2f)", c.piece, c.n, one>>10, four>>10, float64(four)/float64(one))
		if four > 8*one {
			t.Errorf("%q x %d: %d bytes allocated, four times as many: %d", c.piece, c.n, one, four)
		}
	}
}
