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
	if finished, givenBack := f.report(); finished != 1 || givenBack != 1 {
		t.Errorf("report = %d finished, %d given back; want 1 and 1", finished, givenBack)
	}
	f.add(1) // still running when the report is made
	if finished, givenBack := f.report(); finished != 1 || givenBack != 2 {
		t.Errorf("report = %d finished, %d given back; want 1 and 2", finished, givenBack)
	}
}
