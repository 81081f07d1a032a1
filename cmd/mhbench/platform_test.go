package main

import (
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
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

// TestWriteTimeline: report rows become spans since the POST, in the order
// they began, with the client's count last; rows of other kinds are left
// out.
func TestWriteTimeline(t *testing.T) {
	start := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	acts := []models.Activity{
		{Kind: models.ActivityWalk, TS: at(19)},
		{Kind: models.ActivityExtractor, Name: "mime_type", TS: at(37)},
		{Kind: models.ActivityHarvestDownload, Name: "o1.bin", TS: at(40)},
		{Kind: models.ActivityExtractor, Name: "mime_type", TS: at(108)},
		{Kind: models.ActivityExtractor, Name: "hashes", TS: at(204)},
		{Kind: models.ActivityHarvestEnd, Name: "o1.bin", TS: at(292)},
		{Kind: models.ActivityExtractor, Name: "hashes", TS: at(396)},
		{Kind: models.ActivityHarvestEnd, Name: "o2.bin", TS: at(396)},
	}
	var out strings.Builder
	writeTimeline(&out, start, userRun{searchable: 448 * time.Millisecond, searches: 5}, acts)
	want := "    from the POST: walk +19ms; mime_type +37ms..+108ms; hashes +204ms..+396ms; recorded +292ms..+396ms; searchable +448ms (5 counts)\n"
	if out.String() != want {
		t.Errorf("timeline\n got %q\nwant %q", out.String(), want)
	}
}
