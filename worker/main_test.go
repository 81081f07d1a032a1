package worker

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests with the collector target metaharvest's main
// gives the processes that run a worker (GOGC=400 unless GOGC is set),
// as it did when worker.Run set it: the tests that harvest with heavy
// extractors (geocoding's polygons under -race) take about half as long.
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
