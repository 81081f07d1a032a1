package worker

import (
	"fmt"
	"slices"
	"testing"
)

func TestItemBatches(t *testing.T) {
	files := func(sizes ...int64) []harvestable {
		out := make([]harvestable, len(sizes))
		for i, s := range sizes {
			out[i] = harvestable{id: fmt.Sprint(i), size: s}
		}
		return out
	}
	lens := func(b [][]harvestable) []int {
		var out []int
		for _, x := range b {
			out = append(out, len(x))
		}
		return out
	}
	const batchFiles = 500
	many := make([]int64, 2*batchFiles+1)
	for i := range many {
		many[i] = 4096
	}
	for _, tc := range []struct {
		name  string
		files []harvestable
		want  []int
	}{
		{"none", nil, nil},
		{"small files by count", files(many...), []int{batchFiles, batchFiles, 1}},
		{"big files alone", files(ItemBatchBytes+1, 10, ItemBatchBytes, 1), []int{1, 1, 1, 1}},
		{"up to the byte limit", files(ItemBatchBytes-10, 10, 1), []int{2, 1}},
		{"bytes add up", files(ItemBatchBytes/2, ItemBatchBytes/2, 1), []int{2, 1}},
	} {
		got := itemBatches(tc.files, batchFiles)
		if !slices.Equal(lens(got), tc.want) {
			t.Errorf("%s: batch sizes %v, want %v", tc.name, lens(got), tc.want)
		}
		// Order and membership are kept.
		var flat []harvestable
		for _, b := range got {
			flat = append(flat, b...)
		}
		for i, f := range tc.files {
			if flat[i].id != f.id {
				t.Fatalf("%s: file %d is %s, want %s", tc.name, i, flat[i].id, f.id)
			}
		}
	}
}
