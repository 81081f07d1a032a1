package speech

import (
	"io"
	"sync"
	"time"
)

// Why recognition ended before the end of the audio.
const (
	stopMaxSeconds  = "max_seconds"
	stopTimeLimit   = "time_limit"
	stopDecodeError = "decode_error"
)

// feed is the recogniser's input: the decoded audio, counted, ending
// early when stop is called (the time limit draws near). The end of input
// is a clean end of audio for the recogniser, which then finishes the
// utterance it is in and prints its words, so that the words heard so far
// are kept.
type feed struct {
	r io.Reader

	mu      sync.Mutex
	fed     int64
	stopped bool
}

func newFeed(r io.Reader) *feed { return &feed{r: r} }

// Read is called by the copy to the recogniser's standard input.
func (f *feed) Read(p []byte) (int, error) {
	f.mu.Lock()
	stopped := f.stopped
	f.mu.Unlock()
	if stopped {
		return 0, io.EOF
	}
	// Whole samples only, so that a stop never splits one.
	if len(p) > 1 {
		p = p[:len(p)&^1]
	}
	n, err := f.r.Read(p)
	f.mu.Lock()
	f.fed += int64(n)
	f.mu.Unlock()
	return n, err
}

// stop ends the input at the next read.
func (f *feed) stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
}

// state returns the bytes fed and whether the input was stopped early.
func (f *feed) state() (fed int64, stopped bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fed, f.stopped
}

// stopBefore is when a run that must end by deadline stops feeding audio:
// early enough for the recogniser to finish the few seconds of audio
// buffered in the pipe and print its words, even on a busy machine.
func stopBefore(deadline time.Time, now time.Time) time.Time {
	left := deadline.Sub(now)
	reserve := min(max(left/10, 10*time.Second), 2*time.Minute)
	return deadline.Add(-reserve)
}
