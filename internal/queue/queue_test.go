package queue

import "testing"

func TestClampPriority(t *testing.T) {
	t.Parallel()
	for in, want := range map[int]int{-3: 5, 0: 5, 1: 1, 5: 5, 10: 10, 11: 10, 1000: 10} {
		if got := ClampPriority(in); got != want {
			t.Errorf("ClampPriority(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	n := Names{}
	if n.Stage(1) != "stage01" || n.Stage(10) != "stage10" || n.Stage(0) != "stage05" || n.Stage(99) != "stage10" {
		t.Fatalf("stage names: %s %s %s %s", n.Stage(1), n.Stage(10), n.Stage(0), n.Stage(99))
	}
	ns := Names{Namespace: "t1"}
	if ns.Stage(3) != "t1:stage03" || ns.Walk() != "t1:walk" {
		t.Fatalf("namespaced names: %s %s", ns.Stage(3), ns.Walk())
	}
	w := n.Weights()
	if len(w) != 13 || len(n.All()) != 13 {
		t.Fatalf("expected 13 queues, got %d/%d", len(w), len(n.All()))
	}
	for p := 1; p < 10; p++ {
		if w[n.Stage(p)] <= w[n.Stage(p+1)] {
			t.Fatalf("stage%02d must weigh more than stage%02d", p, p+1)
		}
	}
}
