//go:build race

package places

// raceEnabled skips the tests that only load big data (rgeo's provinces):
// the race detector makes them minutes long and they share no memory.
const raceEnabled = true
