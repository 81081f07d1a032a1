package extractors

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// The Observer of the registry's configuration hears of every outcome,
// successes and errors alike, with the time each took.
func TestObserverSeesEveryOutcome(t *testing.T) {
	t.Parallel()
	r := testRegistry(t, map[string]funcExtractor{
		"slow": func(ctx context.Context, in *Input) (*Result, error) {
			time.Sleep(20 * time.Millisecond)
			return &Result{Data: map[string]any{}}, nil
		},
		"broken": func(ctx context.Context, in *Input) (*Result, error) { return nil, errors.New("bad file") },
	})
	type seen struct {
		took time.Duration
		err  error
	}
	var mu sync.Mutex
	got := map[string]seen{}
	r.Configure(Config{Observer: func(name string, took time.Duration, err error) {
		mu.Lock()
		got[name] = seen{took, err}
		mu.Unlock()
	}})
	outs := Run(context.Background(), r, []string{"store", "mime_type", "slow", "broken", "later"}, sampleInput(t), time.Minute)
	if len(got) != len(outs) {
		t.Fatalf("observed %d outcomes, Run returned %d: %v", len(got), len(outs), got)
	}
	for _, o := range outs {
		s, ok := got[o.Name]
		if !ok || s.took != o.Duration || (s.err == nil) != (o.Err == nil) {
			t.Errorf("%s: observed %+v, outcome %v %v", o.Name, s, o.Duration, o.Err)
		}
	}
	if got["slow"].took < 20*time.Millisecond || got["broken"].err == nil || got["later"].err == nil {
		t.Fatalf("observations: %+v", got)
	}
}
