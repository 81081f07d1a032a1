package extractortest

import "runtime"

// Allocated runs f and returns the bytes allocated meanwhile, by every
// goroutine: what a hostile file (a bomb, a flood) made an extractor
// allocate. Tests that use it must not run in parallel.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
