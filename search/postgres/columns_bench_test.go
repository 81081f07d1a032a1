package postgres

import (
	"fmt"
	"testing"

	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// BenchmarkItemColumns: a small file's document prepared and turned into
// the columns of its search_documents row, batch by batch, as the
// harvest's transaction does for each new file (without the dictionaries'
// reads), with the body's vector made in Go and without.
func BenchmarkItemColumns(b *testing.B) {
	doc := searchtest.SmallFileDocument()
	p, err := search.PrepareItem(doc)
	if err != nil {
		b.Fatal(err)
	}
	paths := map[string]int32{}
	for path := range p.Flat {
		paths[path] = int32(len(paths) + 1)
	}
	for _, vectors := range []bool{true, false} {
		b.Run(fmt.Sprintf("vectors=%v", vectors), func(b *testing.B) {
			b.ReportAllocs()
			c := &docColumns{vectors: vectors}
			for b.Loop() {
				p, err := search.PrepareItem(doc)
				if err != nil {
					b.Fatal(err)
				}
				if len(c.id) == writeBatch { // a statement's worth: a new batch
					c = &docColumns{vectors: vectors}
				}
				if err := c.addItem(p, 1, paths); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
