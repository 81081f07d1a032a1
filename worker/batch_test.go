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
		got := itemBatches(tc.files, batchFiles, 1)
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

// TestLastPageSpreadOverTheWorkers: the files of a walk's last page make
// at least as many batches as the worker runs tasks at once, when each
// keeps minSpreadFiles; the byte limit still holds.
func TestLastPageSpreadOverTheWorkers(t *testing.T) {
	files := func(n int, size int64) []harvestable {
		out := make([]harvestable, n)
		for i := range out {
			out[i] = harvestable{id: fmt.Sprint(i), size: size}
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
	for _, tc := range []struct {
		name   string
		files  []harvestable
		spread int
		want   []int
	}{
		{"a page of 1,000 over 4", files(1000, 4096), 4, []int{250, 250, 250, 250}},
		{"500 over 4", files(500, 4096), 4, []int{125, 125, 125, 125}},
		{"uneven", files(10+3*minSpreadFiles, 4096), 4, []int{54, 54, 52}},
		{"too few to spread", files(minSpreadFiles+1, 4096), 4, []int{minSpreadFiles + 1}},
		{"more than the batch size allows", files(1200, 4096), 2, []int{500, 500, 200}},
		{"bytes first", files(4*minSpreadFiles, ItemBatchBytes/10), 2, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10}},
		{"not spread", files(1000, 4096), 1, []int{500, 500}},
	} {
		got := itemBatches(tc.files, 500, tc.spread)
		if !slices.Equal(lens(got), tc.want) {
			t.Errorf("%s: batch sizes %v, want %v", tc.name, lens(got), tc.want)
		}
	}
}
