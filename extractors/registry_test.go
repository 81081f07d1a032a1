package extractors

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	newHashes := func(Env) (Extractor, error) { return hashes{}, nil }
	if err := r.Register(Info{Name: "b", Family: FamilyTechnical, DisplayName: "B", Implemented: true, New: newHashes, Tools: []string{"sh"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(Info{Name: "a", Family: FamilyTechnical, DisplayName: "A"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(Info{Name: "a", Family: FamilyTechnical}); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate Register: err = %v", err)
	}
	if err := r.Register(Info{}); err == nil {
		t.Error("Register without name: no error")
	}
	if err := r.Register(Info{Name: "c", Family: FamilyTechnical, Implemented: true}); err == nil {
		t.Error("Register implemented without New: no error")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("MustRegister of a duplicate did not panic")
			}
		}()
		r.MustRegister(Info{Name: "b", Family: FamilyTechnical})
	}()

	if info, ok := r.Get("b"); !ok || info.DisplayName != "B" {
		t.Errorf("Get(b) = %+v, %v", info, ok)
	}
	if _, ok := r.Get("zzz"); ok {
		t.Error("Get(zzz) found")
	}
	var names []string
	for _, info := range r.All() {
		names = append(names, info.Name)
	}
	if !slices.Equal(names, []string{"a", "b"}) || !slices.Equal(r.Names(), names) {
		t.Errorf("All() names = %v, Names() = %v", names, r.Names())
	}

	// Get returns copies: callers cannot change the registry.
	info, _ := r.Get("b")
	info.Tools[0] = "changed"
	if again, _ := r.Get("b"); again.Tools[0] != "sh" {
		t.Error("Get shares Tools with the registry")
	}

	for _, tc := range []struct {
		name   string
		ok     bool
		reason string
	}{
		{"b", true, ""},
		{"a", false, "not implemented in this release"},
		{"zzz", false, `unknown extractor "zzz"`},
	} {
		if ok, reason := r.Available(tc.name); ok != tc.ok || reason != tc.reason {
			t.Errorf("Available(%s) = %v, %q; want %v, %q", tc.name, ok, reason, tc.ok, tc.reason)
		}
	}
	r.MustRegister(Info{Name: "d", Family: FamilyTechnical, Implemented: true, New: newHashes, Tools: []string{"sh", "metaharvest-no-such-tool"}})
	if ok, reason := r.Available("d"); ok || reason != `tool "metaharvest-no-such-tool" not found on PATH` {
		t.Errorf("Available(d) = %v, %q", ok, reason)
	}
}

// TestAvailableCachesLookPath: a tool found once stays found, so Available does
// not search PATH for every item. Not parallel: it changes PATH.
func TestAvailableCachesLookPath(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "metaharvest-test-tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	r := NewRegistry()
	r.MustRegister(Info{Name: "x", Family: FamilyTechnical, Implemented: true, New: func(Env) (Extractor, error) { return hashes{}, nil }, Tools: []string{"metaharvest-test-tool"}})
	if ok, reason := r.Available("x"); !ok {
		t.Fatalf("Available(x) = false, %q", reason)
	}
	if err := os.Remove(tool); err != nil {
		t.Fatal(err)
	}
	if ok, _ := r.Available("x"); !ok {
		t.Error("Available(x) looked PATH up again")
	}
	if ok, _ := NewRegistry().Available("x"); ok {
		t.Error("a new registry shares the cache")
	}
}
