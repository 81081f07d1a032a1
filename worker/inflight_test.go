package worker

import (
	"context"
	"testing"
)

// The shutdown report counts a handler by how it ended after the stop:
// one running at the stop that finishes counts as finished; one that
// asynq handed over just before the stop but that starts after it (the
// stop saw it not running) and is cancelled counts as given back, never
// as a negative number finished.
func TestShutdownReportCountsHandlersByHowTheyEnded(t *testing.T) {
	var f inflight
	running, late := context.Background(), context.Background()
	f.add(1) // running when the stop comes
	f.stop()
	f.add(1) // starts after the stop
	cancelled, cancel := context.WithCancel(late)
	cancel()
	f.done(cancelled)
	f.done(running)
	if finished, givenBack, late := f.report(); finished != 1 || givenBack != 1 || late != 1 {
		t.Errorf("report = %d finished, %d given back, %d started late; want 1, 1 and 1", finished, givenBack, late)
	}
	f.add(1) // starts late too, still running when the report is made
	if finished, givenBack, late := f.report(); finished != 1 || givenBack != 2 || late != 2 {
		t.Errorf("report = %d finished, %d given back, %d started late; want 1, 2 and 2", finished, givenBack, late)
	}
}
