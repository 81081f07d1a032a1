package extractors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// abandonGrace is how long Run waits, once an extractor's time limit has passed,
// for it to return before giving up on it. Extractors honour ctx and the
// Runner kills programs at once, so this only matters for a parser stuck in a
// loop that never looks at ctx: the worker moves on and the goroutine is left
// behind.
const abandonGrace = time.Second

// Run runs the named extractors of reg (Default when nil) on in, one after the
// other, and returns one Outcome per distinct name that ran, in the order
// they ran: the Always extractors first, then the others in the given order
// except that an extractor runs after those it names in After or Needs.
//
// An extractor whose Accept refuses the file (judged after mime_type ran) is
// skipped: it has no Outcome. Each extractor that runs gets a context
// limited to its Info.Timeout, or to timeout when it has none (no limit when
// both are zero), a copy of in whose Prior holds the results of the
// extractors that succeeded before it in this call (added to in.Prior, which
// is not modified), and runs with panics recovered into a PanicError. An
// unknown, unimplemented or unavailable extractor gives an Err wrapping
// ErrUnavailable whose text starts "not available: ". When ctx itself ends,
// the remaining extractors are not run and their Err is ctx's error marked
// Transient.
func Run(ctx context.Context, reg *Registry, names []string, in *Input, timeout time.Duration) []Outcome {
	if reg == nil {
		reg = Default
	}
	prior := maps.Clone(in.Prior)
	if prior == nil {
		prior = map[string]json.RawMessage{}
	}
	order := reg.Order(names)
	work := *in
	work.Requested = order
	work.shared = &sharedWork{vals: map[string]*sharedVal{}}
	outcomes := make([]Outcome, 0, len(order))
	for _, name := range order {
		info, known := reg.lookup(name)
		if known && info.Implemented && info.Accept != nil && ctx.Err() == nil && !info.Accept(fileOf(&work)) {
			continue
		}
		o := runOne(ctx, reg, name, &work, prior, timeout)
		if o.Err == nil {
			prior[name] = o.JSON
			if name == "mime_type" {
				work.MIME, _ = o.Data["mime_type"].(string)
			}
		}
		outcomes = append(outcomes, o)
	}
	return outcomes
}

func fileOf(in *Input) File {
	return File{Name: in.Name, Ext: extension(in.Name), MIME: in.MIME, Size: in.Size}
}

// Order returns names without duplicates in the order Run runs them: the
// Always extractors among them first, then the others in the given order,
// each moved after the extractors of its After and Needs that are in the
// list. A cycle of After (a bug) keeps the given order for its members.
func (r *Registry) Order(names []string) []string {
	key := strings.Join(names, "\x00")
	r.mu.RLock()
	cached, ok := r.orders[key]
	r.mu.RUnlock()
	if ok {
		return slices.Clone(cached)
	}
	out := r.order(names)
	r.mu.Lock()
	if len(r.orders) >= maxCachedOrders {
		r.orders = map[string][]string{}
	}
	r.orders[key] = out
	r.mu.Unlock()
	return slices.Clone(out)
}

// maxCachedOrders bounds the cache of orders: every file of a job asks for
// the same one, and jobs use a few lists.
const maxCachedOrders = 256

func (r *Registry) order(names []string) []string {
	var base, rest []string
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	for _, n := range r.AlwaysNames() {
		if seen[n] {
			base = append(base, n)
		}
	}
	placedBase := map[string]bool{}
	for _, n := range names {
		if slices.Contains(base, n) || placedBase[n] {
			continue
		}
		placedBase[n] = true
		rest = append(rest, n)
	}
	// Depth-first placement in the given order: an extractor is placed once
	// every listed extractor it runs after is.
	placed := map[string]bool{}
	visiting := map[string]bool{}
	out := base
	var place func(n string)
	place = func(n string) {
		if placed[n] || visiting[n] {
			return
		}
		visiting[n] = true
		info, _ := r.lookup(n)
		for _, deps := range [2][]string{info.After, info.Needs} {
			for _, dep := range deps {
				if seen[dep] && !slices.Contains(base, dep) {
					place(dep)
				}
			}
		}
		visiting[n] = false
		placed[n] = true
		out = append(out, n)
	}
	for _, n := range rest {
		place(n)
	}
	return out
}

func runOne(ctx context.Context, reg *Registry, name string, in *Input, prior map[string]json.RawMessage, timeout time.Duration) Outcome {
	o := runExtractor(ctx, reg, name, in, prior, timeout)
	reg.mu.RLock()
	observe := reg.cfg.Observer
	reg.mu.RUnlock()
	if observe != nil {
		observe(o.Name, o.Duration, o.Err)
	}
	return o
}

func runExtractor(ctx context.Context, reg *Registry, name string, in *Input, prior map[string]json.RawMessage, timeout time.Duration) Outcome {
	start := time.Now()
	o := Outcome{Name: name, Started: start}
	fail := func(err error) Outcome {
		o.Err = err
		o.Duration = time.Since(start)
		return o
	}
	if err := ctx.Err(); err != nil {
		return fail(Transient(fmt.Errorf("extractor %s not run: %w", name, err)))
	}
	if ok, reason := reg.Available(name); !ok {
		return fail(&unavailableError{reason: reason})
	}
	info, _ := reg.lookup(name)
	x, err := reg.extractor(info)
	if err != nil {
		return fail(&unavailableError{reason: "set-up failed: " + err.Error()})
	}
	if info.Inline && in.Content != nil {
		return runInline(ctx, x, name, in, prior, o)
	}
	if info.Timeout > 0 {
		timeout = info.Timeout
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	input := *in
	input.Prior = maps.Clone(prior) // its own map: an abandoned extractor may still read it
	input.artifactRoot = in.ArtifactDir
	input.ArtifactDir = filepath.Join(in.ArtifactDir, name)

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
		r.res, r.err = x.Extract(runCtx, &input)
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
			o.Data, o.Artifacts, o.Segments, o.Captions, o.Faces = r.res.Data, r.res.Artifacts, r.res.Segments, r.res.Captions, r.res.Faces
		}
	}
	if o.Err == nil && o.Data == nil {
		o.Data = map[string]any{}
		if o.JSON == nil || string(o.JSON) == "null" {
			o.JSON = json.RawMessage(`{}`)
		}
	}
	o.Duration = time.Since(start)
	return o
}

// runInline runs an Inline extractor on content in memory, in this
// goroutine (see Info.Inline).
func runInline(ctx context.Context, x Extractor, name string, in *Input, prior map[string]json.RawMessage, o Outcome) (out Outcome) {
	input := *in
	input.Prior = prior
	input.artifactRoot = in.ArtifactDir
	input.ArtifactDir = filepath.Join(in.ArtifactDir, name)
	var res *Result
	err := func() (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = &PanicError{Name: name, Value: v, Stack: debug.Stack()}
			}
		}()
		res, err = x.Extract(ctx, &input)
		return err
	}()
	o.Err = classify(ctx, ctx, name, 0, err)
	if o.Err == nil && res != nil {
		o.JSON, o.Err = checkResult(name, res)
		if o.Err == nil {
			o.Data, o.Artifacts, o.Segments, o.Captions, o.Faces = res.Data, res.Artifacts, res.Segments, res.Captions, res.Faces
		}
	}
	if o.Err == nil && o.Data == nil {
		o.Data = map[string]any{}
		if o.JSON == nil || string(o.JSON) == "null" {
			o.JSON = json.RawMessage(`{}`)
		}
	}
	o.Duration = time.Since(o.Started)
	return o
}

// unavailableError is the outcome of an extractor that cannot run here; its
// text is what DECISIONS.md promises clients: "not available: <reason>".
type unavailableError struct{ reason string }

func (e *unavailableError) Error() string { return "not available: " + e.reason }
func (e *unavailableError) Unwrap() error { return ErrUnavailable }

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
	raw, err := encodeData(res.Data)
	if err != nil {
		return nil, fmt.Errorf("extractor %s: result does not encode as JSON: %w", name, err)
	}
	for _, a := range res.Artifacts {
		if err := checkArtifactPath(name, a.Path); err != nil {
			return nil, err
		}
	}
	if err := checkMedia(name, res); err != nil {
		return nil, err
	}
	return raw, nil
}

func checkArtifactPath(name, p string) error {
	if p == "" || !filepath.IsLocal(filepath.FromSlash(p)) {
		return fmt.Errorf("extractor %s: artifact path %q is not inside the artifact directory", name, p)
	}
	return nil
}

// sharedWork holds what the extractors of one file compute once for all
// of them (Input.Shared).
type sharedWork struct {
	mu   sync.Mutex
	vals map[string]*sharedVal
}

type sharedVal struct {
	mu   sync.Mutex
	done bool
	v    any
	err  error
}

// Shared returns the value computed for key by the first extractor of this
// harvest of the file that asked, computing it now if none did: one ffprobe
// reading serves mediainfo, audioinfo and drm; one ffmpeg decode serves every
// broadcast analysis. A computation ended by its context is not kept (the
// next extractor computes again, under its own time limit); any other
// error is kept and returned to every later caller.
func (in *Input) Shared(key string, compute func() (any, error)) (any, error) {
	if in.shared == nil { // an Input not made by Run (a direct test call)
		return compute()
	}
	in.shared.mu.Lock()
	sv := in.shared.vals[key]
	if sv == nil {
		sv = &sharedVal{}
		in.shared.vals[key] = sv
	}
	in.shared.mu.Unlock()
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.done {
		return sv.v, sv.err
	}
	v, err := compute()
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return v, err
	}
	sv.v, sv.err, sv.done = v, err, true
	return v, err
}

// RunOne runs one extractor of reg on in whatever its Accept says, with the
// checks and limits of Run: for tests (extractortest) and tools that point
// an extractor at a file on purpose.
func RunOne(ctx context.Context, reg *Registry, name string, in *Input, timeout time.Duration) Outcome {
	if reg == nil {
		reg = Default
	}
	work := *in
	if work.Requested == nil {
		work.Requested = []string{name}
	}
	work.shared = &sharedWork{vals: map[string]*sharedVal{}}
	prior := maps.Clone(in.Prior)
	if prior == nil {
		prior = map[string]json.RawMessage{}
	}
	return runOne(ctx, reg, name, &work, prior, timeout)
}
