package extractors

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"sync"
)

// Registry maps extractor API names to their Info. The zero value is not usable;
// call NewRegistry. A Registry is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	infos map[string]Info
	// tools caches exec.LookPath by tool name: Available is asked for every
	// extractor of every item, and PATH does not change under a running process.
	tools map[string]error
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{infos: map[string]Info{}, tools: map[string]error{}}
}

// Default is the registry filled by the init functions of this package: every
// extractor API name of the reference.
var Default = NewRegistry()

// MustRegister registers info in Default and panics on an invalid or duplicate
// entry; for init functions.
func MustRegister(info Info) { Default.MustRegister(info) }

// Names returns the API names of the Default registry, sorted.
func Names() []string { return Default.Names() }

// Register adds info. It fails on an empty or duplicate name, and on an
// Implemented extractor without New.
func (r *Registry) Register(info Info) error {
	if info.Name == "" {
		return errors.New("register extractor: empty name")
	}
	if info.Implemented && info.New == nil {
		return fmt.Errorf("register extractor %s: implemented but New is nil", info.Name)
	}
	info.Tools = slices.Clone(info.Tools)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.infos[info.Name]; dup {
		return fmt.Errorf("register extractor %s: duplicate name", info.Name)
	}
	r.infos[info.Name] = info
	return nil
}

// MustRegister is Register that panics on error.
func (r *Registry) MustRegister(info Info) {
	if err := r.Register(info); err != nil {
		panic(err)
	}
}

// Get returns the Info registered under name.
func (r *Registry) Get(name string) (Info, bool) {
	r.mu.RLock()
	info, ok := r.infos[name]
	r.mu.RUnlock()
	info.Tools = slices.Clone(info.Tools)
	return info, ok
}

// All returns every registered Info sorted by name.
func (r *Registry) All() []Info {
	r.mu.RLock()
	all := make([]Info, 0, len(r.infos))
	for _, info := range r.infos {
		info.Tools = slices.Clone(info.Tools)
		all = append(all, info)
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

// Available reports whether the extractor can run here: it is registered,
// implemented, and every tool it needs is found on PATH. When it cannot, reason
// says why in words fit for an API response. Tool look-ups are cached for the
// life of the registry.
func (r *Registry) Available(name string) (ok bool, reason string) {
	info, found := r.Get(name)
	switch {
	case !found:
		return false, fmt.Sprintf("unknown extractor %q", name)
	case !info.Implemented:
		return false, "not implemented in this release"
	}
	for _, tool := range info.Tools {
		if err := r.lookTool(tool); err != nil {
			return false, fmt.Sprintf("tool %q not found on PATH", tool)
		}
	}
	return true, ""
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
