package worker

import (
	"context"
	"sync"
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

// Handlers that end while the stop comes are counted once: either running
// at the stop (and then finished) or ended before it (and then in neither
// figure), so that finished + given back always equals running + late.
// The previous code read the running count and marked the stop in two
// steps, and a handler ending between them was lost from the report.
func TestShutdownReportLosesNoHandlerEndingAtTheStop(t *testing.T) {
	for round := 0; round < 2000; round++ {
		var f inflight
		const handlers = 4
		for i := 0; i < handlers; i++ {
			f.add(1)
		}
		var wg sync.WaitGroup
		for i := 0; i < handlers; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); f.done(context.Background()) }()
		}
		running := f.stop()
		wg.Wait()
		finished, givenBack, late := f.report()
		if finished+givenBack != running+late {
			t.Fatalf("round %d: %d running at the stop, %d started late, but %d finished and %d given back",
				round, running, late, finished, givenBack)
		}
	}
}
