package extractors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime/debug"
	"time"
)

// abandonGrace is how long Run waits, once an extractor's time limit has passed,
// for it to return before giving up on it. Extractors honour ctx and RunTool
// kills programs at once, so this only matters for a parser stuck in a loop that
// never looks at ctx: the worker moves on and the goroutine is left behind.
const abandonGrace = time.Second

// firstNames run before the others when requested, so that every later
// extractor finds their results in Input.Prior.
var firstNames = []string{"store", "mime_type"}

// Run runs the named extractors of reg (Default when nil) on in, one after the
// other, and returns one Outcome per distinct name in the order they ran: store
// and mime_type first when present, then the others in the given order.
//
// Each extractor gets a context limited to timeout (no limit of its own when
// timeout <= 0), a copy of in whose Prior holds the results of the extractors
// that succeeded before it in this call (added to in.Prior, which is not
// modified), and runs with panics recovered into a PanicError. An unknown,
// unimplemented or tool-less extractor gives an Err wrapping ErrUnavailable.
// When ctx itself ends, the remaining extractors are not run and their Err is
// ctx's error marked Transient.
func Run(ctx context.Context, reg *Registry, names []string, in *Input, timeout time.Duration) []Outcome {
	if reg == nil {
		reg = Default
	}
	prior := maps.Clone(in.Prior)
	if prior == nil {
		prior = map[string]json.RawMessage{}
	}
	outcomes := make([]Outcome, 0, len(names))
	for _, name := range runOrder(names) {
		o := runOne(ctx, reg, name, in, prior, timeout)
		if o.Err == nil {
			// runOne checked that Data encodes.
			raw, _ := json.Marshal(o.Data)
			prior[name] = raw
		}
		outcomes = append(outcomes, o)
	}
	return outcomes
}

func runOrder(names []string) []string {
	seen := make(map[string]bool, len(names))
	order := make([]string, 0, len(names))
	for _, first := range firstNames {
		for _, name := range names {
			if name == first && !seen[name] {
				seen[name] = true
				order = append(order, name)
			}
		}
	}
	for _, name := range names {
		if !seen[name] {
			seen[name] = true
			order = append(order, name)
		}
	}
	return order
}

func runOne(ctx context.Context, reg *Registry, name string, in *Input, prior map[string]json.RawMessage, timeout time.Duration) Outcome {
	start := time.Now()
	o := Outcome{Name: name, Started: start}

	if err := ctx.Err(); err != nil {
		o.Err = Transient(fmt.Errorf("extractor %s not run: %w", name, err))
		o.Duration = time.Since(start)
		return o
	}
	if ok, reason := reg.Available(name); !ok {
		o.Err = fmt.Errorf("extractor %s: %w: %s", name, ErrUnavailable, reason)
		o.Duration = time.Since(start)
		return o
	}
	info, _ := reg.Get(name)

	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	input := *in
	input.Prior = maps.Clone(prior) // its own map: an abandoned extractor may still read it

	type ret struct {
		res *Result
		err error
	}
	done := make(chan ret, 1) // buffered: an abandoned extractor must not block on send
	go func() {
		var r ret
		defer func() {
			if v := recover(); v != nil {
				r = ret{err: &PanicError{Name: name, Value: v, Stack: debug.Stack()}}
			}
			done <- r
		}()
		r.res, r.err = info.New().Extract(runCtx, &input)
	}()

	var r ret
	select {
	case r = <-done:
	case <-runCtx.Done():
		select {
		case r = <-done:
		case <-time.After(abandonGrace):
			r.err = fmt.Errorf("extractor %s did not stop after its time limit: %w", name, runCtx.Err())
		}
	}
	o.Err = classify(ctx, runCtx, name, timeout, r.err)
	if o.Err == nil && r.res != nil {
		o.JSON, o.Err = checkResult(name, r.res)
		if o.Err == nil {
			o.Data, o.Artifacts = r.res.Data, r.res.Artifacts
		}
	}
	if o.Err == nil && o.Data == nil {
		o.Data, o.JSON = map[string]any{}, json.RawMessage(`{}`)
	}
	o.Duration = time.Since(start)
	return o
}

// classify words err after what ended the run: the caller's ctx (transient: the
// harvest was cancelled or the worker is stopping), the extractor's own time
// limit (deterministic), or the extractor itself.
func classify(parent, run context.Context, name string, timeout time.Duration, err error) error {
	switch {
	case err == nil:
		return nil
	case parent.Err() != nil:
		return Transient(fmt.Errorf("extractor %s interrupted: %w", name, err))
	case run.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("extractor %s exceeded its time limit of %s: %w", name, timeout, err)
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("extractor %s: %w", name, err)
}

// checkResult refuses results the worker could not store and returns the
// data encoded.
func checkResult(name string, res *Result) (json.RawMessage, error) {
	raw, err := json.Marshal(res.Data)
	if err != nil {
		return nil, fmt.Errorf("extractor %s: result does not encode as JSON: %w", name, err)
	}
	for _, a := range res.Artifacts {
		if !filepath.IsLocal(filepath.FromSlash(a.Path)) {
			return nil, fmt.Errorf("extractor %s: artifact path %q is not inside the artifact directory", name, a.Path)
		}
	}
	return raw, nil
}
