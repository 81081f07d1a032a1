package main

import (
	"strings"
	"testing"
	"time"
)

// TestNextPoll: a client counts every userPoll while the rest of the files
// are far, and sooner, but not more often than finePoll, when the count's
// pace says they are due.
func TestNextPoll(t *testing.T) {
	start := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return start.Add(d) }
	for _, tc := range []struct {
		name      string
		asked     time.Duration
		n, want   int64
		wantAfter time.Duration
	}{
		{"nothing counted yet", 300 * time.Millisecond, 0, 1000, userPoll},
		{"far from done", time.Second, 100, 1000, userPoll},
		{"due in 53 ms", time.Second, 950, 1000, 52631 * time.Microsecond},
		{"due at once", time.Second, 999, 1000, finePoll},
		{"done", time.Second, 1000, 1000, userPoll},
	} {
		got := nextPoll(start, at(tc.asked), tc.n, tc.want).Sub(at(tc.asked))
		if diff := got - tc.wantAfter; diff < -time.Millisecond || diff > time.Millisecond {
			t.Errorf("%s: next poll %v after the count, want %v", tc.name, got, tc.wantAfter)
		}
	}
}

// TestBinaryOutsideTheRepository: run from elsewhere, the bench says
// where to run it from, rather than the build's and git's own errors.
func TestBinaryOutsideTheRepository(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := metaharvestBinary(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not the repository's root") {
		t.Fatalf("metaharvestBinary outside the repository: %v, want an error naming the repository's root", err)
	}
}
