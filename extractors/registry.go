package extractors

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Registry maps extractor API names to their Info, and makes (once per
// process) the extractors it runs. The zero value is not usable; call
// NewRegistry. A Registry is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	infos map[string]*Info // stored once, never changed: read in place
	// tools caches exec.LookPath by tool name: Available is asked for every
	// extractor of every item, and PATH does not change under a running process.
	tools map[string]error
	cfg   Config
	made  map[string]*made
	// seq is the registration order of each name: the base extractors run
	// in the order they were registered.
	seq map[string]int
	// derived caches what is derived from every Info (asked for every file
	// and every search document), and orders the run orders of lists of
	// names (Order); Register clears both.
	derived *derived
	orders  map[string][]string
}

// derived is what the registry derives from all its Infos.
type derived struct {
	always []string
	fields []Declared
}

// made is an extractor made by Info.New, or why it could not be.
type made struct {
	once sync.Once
	x    Extractor
	err  error
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{infos: map[string]*Info{}, tools: map[string]error{}, made: map[string]*made{}, seq: map[string]int{},
		orders: map[string][]string{}}
}

// Default is the registry filled by the init functions of this package
// (the base extractors) and of its families (linked by
// extractors/families): the one list of the extractors a program knows,
// each declared once, by its family.
var Default = NewRegistry()

// MustRegister registers info in Default and panics on an invalid or duplicate
// entry; for init functions.
func MustRegister(info Info) { Default.MustRegister(info) }

// Names returns the API names of the Default registry, sorted.
func Names() []string { return Default.Names() }

// Register adds info. It fails on an empty or duplicate name, a Family
// that is not one of Families, an Implemented extractor without New, After
// or Needs naming itself, Needs that would close a cycle with the
// registered extractors, or malformed Fields. An implemented Info replaces
// a placeholder (not Implemented) of the same name; anything else
// registered twice is an error.
func (r *Registry) Register(info Info) error {
	if info.Name == "" {
		return errors.New("register extractor: empty name")
	}
	if !info.Family.Known() {
		return fmt.Errorf("register extractor %s: family %q is not one of %v", info.Name, info.Family, Families())
	}
	if info.Implemented && info.New == nil {
		return fmt.Errorf("register extractor %s: implemented but New is nil", info.Name)
	}
	if slices.Contains(info.After, info.Name) {
		return fmt.Errorf("register extractor %s: runs after itself", info.Name)
	}
	if slices.Contains(info.Needs, info.Name) {
		return fmt.Errorf("register extractor %s: needs itself", info.Name)
	}
	if err := checkFields(info); err != nil {
		return err
	}
	if err := checkSettings(info); err != nil {
		return err
	}
	info = cloneInfo(info)
	r.mu.Lock()
	defer r.mu.Unlock()
	if have, dup := r.infos[info.Name]; dup && (have.Implemented || !info.Implemented) {
		return fmt.Errorf("register extractor %s: duplicate name", info.Name)
	}
	if path := r.needsPathTo(info.Name, info.Needs); path != nil {
		return fmt.Errorf("register extractor %s: needs cycle %s", info.Name, strings.Join(append([]string{info.Name}, path...), " -> "))
	}
	r.infos[info.Name] = &info
	if _, ok := r.seq[info.Name]; !ok {
		r.seq[info.Name] = len(r.seq)
	}
	delete(r.made, info.Name)
	r.derived = nil
	r.orders = map[string][]string{}
	return nil
}

// needsPathTo returns a chain of Needs from the names in from to target
// through the registered extractors (target last), nil when there is none:
// registering target with Needs from would close a cycle. Every Register
// checks it, so the registered Needs never hold a cycle and WithNeeds
// terminates. r.mu is held.
func (r *Registry) needsPathTo(target string, from []string) []string {
	seen := map[string]bool{}
	var walk func(n string) []string
	walk = func(n string) []string {
		if n == target {
			return []string{n}
		}
		if seen[n] {
			return nil
		}
		seen[n] = true
		for _, next := range r.needs(n) {
			if p := walk(next); p != nil {
				return append([]string{n}, p...)
			}
		}
		return nil
	}
	for _, n := range from {
		if p := walk(n); p != nil {
			return p
		}
	}
	return nil
}

// WithNeeds returns names followed by what they need (Info.Needs),
// transitively, each name once: the names first in their order, then each
// need after the first name that brought it, in depth-first order of the
// Needs lists, so the result depends only on names and the registrations.
// Needs that are not registered are kept (a harvest records them as not
// available). The harvest's selection (internal/jobs) is its one caller
// that matters: what a job stores is what its items run.
func (r *Registry) WithNeeds(names []string) []string {
	out := slices.Clone(names)
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var add func(n string)
	add = func(n string) {
		for _, need := range r.needs(n) {
			if !seen[need] {
				seen[need] = true
				out = append(out, need)
				add(need)
			}
		}
	}
	for _, n := range names {
		add(n)
	}
	return out
}

// MustRegister is Register that panics on error.
func (r *Registry) MustRegister(info Info) {
	if err := r.Register(info); err != nil {
		panic(err)
	}
}

func cloneInfo(info Info) Info {
	info.Tools = slices.Clone(info.Tools)
	info.After = slices.Clone(info.After)
	info.Needs = slices.Clone(info.Needs)
	info.Fields = slices.Clone(info.Fields)
	info.Settings = slices.Clone(info.Settings)
	return info
}

// Get returns the Info registered under name.
func (r *Registry) Get(name string) (Info, bool) {
	info, ok := r.lookup(name)
	return cloneInfo(*info), ok
}

// lookup returns the Info registered under name as stored (an empty one
// when there is none), for reading only: the hot paths (every file, every
// extractor) need no copy.
func (r *Registry) lookup(name string) (*Info, bool) {
	r.mu.RLock()
	info, ok := r.infos[name]
	r.mu.RUnlock()
	if !ok {
		return &noInfo, false
	}
	return info, true
}

// noInfo is what lookup returns for a name nobody registered.
var noInfo Info

// needs returns what the extractor registered under n needs; the caller
// holds r.mu.
func (r *Registry) needs(n string) []string {
	if info, ok := r.infos[n]; ok {
		return info.Needs
	}
	return nil
}

// Version is the version of the extractor registered under name ("" when
// there is none).
func (r *Registry) Version(name string) string {
	info, _ := r.lookup(name)
	return info.Version
}

// All returns every registered Info sorted by name.
func (r *Registry) All() []Info {
	r.mu.RLock()
	all := make([]Info, 0, len(r.infos))
	for _, info := range r.infos {
		all = append(all, cloneInfo(*info))
	}
	r.mu.RUnlock()
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// Names returns the registered API names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	names := make([]string, 0, len(r.infos))
	for name := range r.infos {
		names = append(names, name)
	}
	r.mu.RUnlock()
	sort.Strings(names)
	return names
}

// Access is how an extractor reads the files it is given, without a copy
// of its Info: the worker asks it of every extractor of every file.
type Access struct {
	// Known: an extractor is registered under the name.
	Known bool
	// Implemented, Inline and RangeReads are its Info's.
	Implemented, Inline, RangeReads bool
}

// Access is how the extractor registered under name reads files.
func (r *Registry) Access(name string) Access {
	info, ok := r.lookup(name)
	return Access{Known: ok, Implemented: info.Implemented, Inline: info.Inline, RangeReads: info.RangeReads}
}

// AlwaysNames returns the base extractors every harvest runs first
// (Info.Always), in the order they were registered.
func (r *Registry) AlwaysNames() []string {
	return slices.Clone(r.derive().always)
}

// derive returns what is derived from all Infos, computed once after the
// last Register.
func (r *Registry) derive() *derived {
	r.mu.RLock()
	d := r.derived
	r.mu.RUnlock()
	if d != nil {
		return d
	}
	d = &derived{}
	all := r.All()
	for _, info := range all {
		if info.Always {
			d.always = append(d.always, info.Name)
		}
		for _, f := range info.Fields {
			d.fields = append(d.fields, Declared{Path: info.Name + "." + f.Path, Type: f.Type, Doc: f.Doc, Label: f.Label,
				Internal: f.Internal, Extractor: info.Name})
		}
	}
	sort.Slice(d.fields, func(i, j int) bool { return d.fields[i].Path < d.fields[j].Path })
	r.mu.Lock()
	defer r.mu.Unlock()
	sort.SliceStable(d.always, func(i, j int) bool { return r.seq[d.always[i]] < r.seq[d.always[j]] })
	if len(r.infos) == len(all) {
		// Nothing was registered meanwhile (else the next call derives again).
		r.derived = d
	}
	return d
}

// Fields returns every declared field of the registered extractors with its
// full path, sorted by path.
func (r *Registry) Fields() []Declared {
	return slices.Clone(r.derive().fields)
}

// Configure sets what extractors are made with (their settings come from
// cfg.Lookup). Call it once at start, before the first harvest; extractors
// made before are made again with the new configuration on next use.
func (r *Registry) Configure(cfg Config) {
	if cfg.Runner == nil {
		cfg.Runner = NewRunner(0)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r.mu.Lock()
	r.cfg = cfg
	old := r.made
	r.made = map[string]*made{}
	r.mu.Unlock()
	closeMade(old)
	// The settings are checked here, once at start, and each bad value is
	// logged in the one format of Setting.Check; the extractor is then not
	// available, with that reason (Available), until the value is fixed.
	for _, err := range r.CheckSettings() {
		cfg.Logger.Error("extractor setting refused: the extractor is not available", slog.String("error", err.Error()))
	}
}

// CheckSettings returns an error for each implemented extractor whose
// configured settings (Configure's Lookup, else the defaults) hold a value
// that is not one of its setting (Setting.Check), by extractor name.
func (r *Registry) CheckSettings() []error {
	r.mu.RLock()
	lookup := r.cfg.Lookup
	r.mu.RUnlock()
	var errs []error
	for _, info := range r.All() {
		if _, _, bad := settingsOf(&info, lookup); bad != nil && info.Implemented {
			errs = append(errs, fmt.Errorf("extractor %s: %w", info.Name, bad))
		}
	}
	return errs
}

// Available reports whether the extractor can run here: it is registered,
// implemented, every tool it needs is found on PATH, its required settings
// are set and every setting holds a value of its kind (Setting.Check).
// When it cannot, reason says why in words fit for an API response. Tool look-ups are cached for the life of the registry. An
// extractor whose New fails is found out on first use (Run records it).
func (r *Registry) Available(name string) (ok bool, reason string) {
	info, found := r.lookup(name)
	switch {
	case !found:
		if reason, ok := unregisteredReason(name); ok {
			return false, reason
		}
		return false, fmt.Sprintf("unknown extractor %q", name)
	case !info.Implemented:
		return false, "not implemented in this release"
	}
	for _, tool := range info.Tools {
		if err := r.lookTool(tool); err != nil {
			return false, fmt.Sprintf("tool %q not found on PATH", tool)
		}
	}
	r.mu.RLock()
	cfg := r.cfg
	r.mu.RUnlock()
	vals, missing, bad := settingsOf(info, cfg.Lookup)
	if len(missing) > 0 {
		what := "setting"
		if info.Provider != "" {
			what = info.Provider + " provider setting"
		}
		return false, fmt.Sprintf("%s %s not set", what, strings.Join(missing, ", "))
	}
	if bad != nil {
		return false, bad.Error()
	}
	if info.Check != nil {
		env := Env{Settings: vals, Declared: info.Settings, Runner: cfg.Runner, Logger: cfg.Logger, NoFaceDescriptors: cfg.NoFaceDescriptors}
		if err := info.Check(env); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}

// Settings returns the resolved settings of an extractor, secrets replaced
// by "<set>" (or "" when unset), for listings.
func (r *Registry) Settings(name string) map[string]string {
	info, _ := r.lookup(name)
	r.mu.RLock()
	lookup := r.cfg.Lookup
	r.mu.RUnlock()
	vals, _, _ := settingsOf(info, lookup)
	for _, s := range info.Settings {
		if s.Secret && vals[s.Name] != "" {
			vals[s.Name] = "<set>"
		}
	}
	return vals
}

// extractor returns the process's extractor of that name, making it on first
// use. The caller checked Available.
func (r *Registry) extractor(info *Info) (Extractor, error) {
	r.mu.Lock()
	m := r.made[info.Name]
	if m == nil {
		m = &made{}
		r.made[info.Name] = m
	}
	cfg := r.cfg
	r.mu.Unlock()
	m.once.Do(func() {
		if cfg.Runner == nil {
			cfg.Runner = NewRunner(0)
		}
		if cfg.Logger == nil {
			cfg.Logger = slog.Default()
		}
		vals, _, bad := settingsOf(info, cfg.Lookup)
		if bad != nil {
			m.err = bad
			return
		}
		env := Env{Settings: vals, Declared: info.Settings, Runner: cfg.Runner, Logger: cfg.Logger.With(slog.String("extractor", info.Name)),
			NoFaceDescriptors: cfg.NoFaceDescriptors}
		func() {
			defer func() {
				if v := recover(); v != nil {
					m.err = fmt.Errorf("set-up panicked: %v", v)
				}
			}()
			m.x, m.err = info.New(env)
		}()
		if m.err == nil && m.x == nil {
			m.err = errors.New("set-up made no extractor")
		}
	})
	return m.x, m.err
}

// Close closes the extractors made so far that hold resources (io.Closer).
// The registry can be used again afterwards: extractors are made anew.
func (r *Registry) Close() error {
	r.mu.Lock()
	old := r.made
	r.made = map[string]*made{}
	r.mu.Unlock()
	return closeMade(old)
}

func closeMade(all map[string]*made) error {
	var errs error
	for name, m := range all {
		if c, ok := m.x.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = errors.Join(errs, fmt.Errorf("close extractor %s: %w", name, err))
			}
		}
	}
	return errs
}

func (r *Registry) lookTool(tool string) error {
	r.mu.RLock()
	err, cached := r.tools[tool]
	r.mu.RUnlock()
	if cached {
		return err
	}
	_, err = exec.LookPath(tool)
	r.mu.Lock()
	r.tools[tool] = err
	r.mu.Unlock()
	return err
}
