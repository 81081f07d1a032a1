package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func status(state string, walked, enqueued, harvested, failed int64) jobStatus {
	var s jobStatus
	s.State = state
	s.Counts.Walked, s.Counts.Enqueued, s.Counts.Harvested, s.Counts.Failed = walked, enqueued, harvested, failed
	return s
}

// The progress line: files done of files to do (with "+" while the walk
// may find more), the rate since the first file finished, errors, and an
// ETA once the total is known.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	p := &progressBar{out: &out, now: func() time.Time { return now }}
	steps := []struct {
		after time.Duration
		st    jobStatus
		want  string
	}{
		{0, status("queued", 0, 0, 0, 0), "queued     [------------------------] 0/0+ files  0.0 files/s  0 errors  ETA -"},
		{time.Second, status("walking", 1000, 1000, 10, 0), "walking    [------------------------] 10/1000+ files  0.0 files/s  0 errors  ETA -"},
		{2 * time.Second, status("harvesting", 2000, 2000, 200, 10), "harvesting [##----------------------] 210/2000 files  100.0 files/s  10 errors  ETA 18s"},
		{4 * time.Second, status("done", 2000, 2000, 1980, 20), "done       [########################] 2000/2000 files  331.7 files/s  20 errors  ETA 0s"},
	}
	for _, s := range steps {
		now = now.Add(s.after)
		if got := p.line(s.st); got != s.want {
			t.Errorf("%s:\n got %q\nwant %q", s.st.State, got, s.want)
		}
	}
}

// On a terminal the bar redraws one line in place; elsewhere it prints a
// line when something changed, at most every few seconds, and the last.
func TestProgressOutput(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var tty bytes.Buffer
	p := &progressBar{out: &tty, tty: true, now: clock}
	p.show(status("harvesting", 10, 10, 5, 0))
	p.show(status("done", 10, 10, 10, 0))
	p.done()
	if got := tty.String(); strings.Count(got, "\r\033[K") != 2 || !strings.HasSuffix(got, "ETA 0s\n") {
		t.Fatalf("terminal output %q", got)
	}
	var plain bytes.Buffer
	p = &progressBar{out: &plain, now: clock}
	p.show(status("harvesting", 10, 10, 1, 0))
	now = now.Add(time.Second)
	p.show(status("harvesting", 10, 10, 2, 0)) // too soon: not printed
	now = now.Add(plainInterval)
	p.show(status("harvesting", 10, 10, 3, 0))
	p.show(status("done", 10, 10, 10, 0)) // the end is always printed
	p.done()
	lines := strings.Split(strings.TrimSpace(plain.String()), "\n")
	if len(lines) != 3 || strings.Contains(plain.String(), "\r") || !strings.HasPrefix(lines[2], "done") {
		t.Fatalf("plain output:\n%s", plain.String())
	}
}
