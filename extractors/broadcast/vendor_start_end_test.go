package broadcast

import (
	"reflect"
	"testing"
)

func TestFindProgramme(t *testing.T) {
	t.Parallel()
	m := func(kind string, start, end float64) markedRange { return markedRange{Range{start, end}, kind} }
	cases := []struct {
		name       string
		marks      []markedRange
		end        float64
		found      bool
		start, stp float64
		head, tail int
	}{
		{"nothing", nil, 10, true, 0, 10, 0, 0},
		{"leader and trailer", []markedRange{m("bars", 0, 2), m("black", 2, 4), m("slate", 4.2, 6), m("black", 9, 10)}, 10, true, 6, 9, 3, 1},
		{"black in the programme", []markedRange{m("black", 0, 1), m("black", 4, 5)}, 10, true, 1, 10, 1, 0},
		{"leader not at the start", []markedRange{m("bars", 1, 3)}, 10, true, 0, 10, 0, 0},
		{"overlapping", []markedRange{m("black", 0, 3), m("slate", 1, 2), m("bars", 2.5, 5)}, 10, true, 5, 10, 2, 0},
		{"all leader", []markedRange{m("silence", 0, 6), m("silence", 6.3, 10)}, 10, false, 10, 10, 2, 0},
		{"trailer chain", []markedRange{m("slate", 6, 8), m("black", 8.4, 9.8)}, 10, true, 0, 6, 0, 2},
	}
	for _, c := range cases {
		p := findProgramme(c.marks, c.end)
		if p.found != c.found || p.start != c.start || p.end != c.stp || len(p.head) != c.head || len(p.tail) != c.tail {
			t.Errorf("%s: %+v", c.name, p)
		}
	}
	p := findProgramme([]markedRange{m("black", 8.4, 9.8), m("slate", 6, 8)}, 10)
	if !reflect.DeepEqual(p.tail, []markedRange{m("slate", 6, 8), m("black", 8.4, 9.8)}) {
		t.Errorf("tail not in time order: %v", p.tail)
	}
}

func TestIntersect(t *testing.T) {
	t.Parallel()
	a := []Range{{0, 2}, {3, 6}, {8, 12}}
	b := []Range{{1, 4}, {5, 9}, {10, 10.5}}
	got := intersect(a, b, 0.5)
	want := []Range{{1, 2}, {3, 4}, {5, 6}, {8, 9}, {10, 10.5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := intersect(a, b, 1); !reflect.DeepEqual(got, []Range{{1, 2}, {3, 4}, {5, 6}, {8, 9}}) {
		t.Errorf("min 1 s: %v", got)
	}
}
