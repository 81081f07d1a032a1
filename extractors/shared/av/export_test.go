package av

import "time"

// SetProbeTimeLimit lowers Read's limit for a test and returns the way back.
func SetProbeTimeLimit(d time.Duration) (restore func()) {
	old := probeTimeLimit.Swap(int64(d))
	return func() { probeTimeLimit.Store(old) }
}
