package wordmatch

import (
	"fmt"
	"strings"
	"testing"
)

// The worst case the keyword hits allow per text: 500 groups of 500 words
// (a quarter of a million phrases, one in ten of two words) over a
// 256 KiB text (the most an extractor keeps), accented words included.
func BenchmarkScan(b *testing.B) {
	phrases := make([]string, 250000)
	for i := range phrases {
		phrases[i] = fmt.Sprintf("mot%d", i)
		if i%10 == 0 {
			phrases[i] += " été"
		}
	}
	m := New(phrases)
	var text strings.Builder
	for i := 0; text.Len() < 256<<10; i++ {
		fmt.Fprintf(&text, "Le mot%d de l'été, ", i%300000)
	}
	b.SetBytes(int64(text.Len()))
	b.ResetTimer()
	for b.Loop() {
		m.Count(text.String())
	}
}
