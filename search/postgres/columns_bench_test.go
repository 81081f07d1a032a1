package postgres

import (
	"testing"

	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// BenchmarkItemColumns: a small file's document prepared and turned into
// the columns of its search_documents row, batch by batch, as the
// harvest's transaction does for each new file (without the dictionaries'
// reads).
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
	b.ReportAllocs()
	c := &docColumns{}
	for b.Loop() {
		p, err := search.PrepareItem(doc)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.id) == writeBatch { // a statement's worth: a new batch
			c = &docColumns{}
		}
		if err := c.addItem(p, 1, paths); err != nil {
			b.Fatal(err)
		}
	}
}
