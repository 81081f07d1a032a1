package web

import "testing"

// Durations count whole seconds elapsed, as the page's player does.
func TestHumanDuration(t *testing.T) {
	for sec, want := range map[float64]string{5.568: "0:05", 59.99: "0:59", 60: "1:00", 3725.9: "1:02:05", 0: "", -1: ""} {
		if got := humanDuration(sec); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", sec, got, want)
		}
	}
}
