package search_test

import (
	"testing"

	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// BenchmarkPrepareItem: a small file's document prepared for indexing (the
// small-file bench spends a tenth of its Go time here).
func BenchmarkPrepareItem(b *testing.B) {
	doc := searchtest.SmallFileDocument()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := search.PrepareItem(doc); err != nil {
			b.Fatal(err)
		}
	}
}
