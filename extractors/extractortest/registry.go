package extractortest

import (
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// HeavySlots is how many heavy programs (decodes, OCR) the registries of
// Registry run at once: the test machines have two cores, shared by the
// packages tested in parallel.
const HeavySlots = 2

// Registry returns a registry holding the named extractors as Default has
// them, each of which must be registered there and implemented (a family
// whose init did not run, or a placeholder, fails the test). It is
// configured with env standing for the process environment (nil: nothing
// set) and a Runner of HeavySlots, and closed when the test ends. Name the
// base extractors (store, mime_type) when what the test runs needs them:
// Run and Harvest use mime_type when it is there.
func Registry(t testing.TB, env map[string]string, names ...string) *extractors.Registry {
	t.Helper()
	reg := extractors.NewRegistry()
	for _, name := range names {
		info, ok := extractors.Default.Get(name)
		if !ok || !info.Implemented {
			t.Fatalf("extractor %s is not registered in Default (is its family linked?)", name)
		}
		reg.MustRegister(info)
	}
	reg.Configure(extractors.Config{Runner: extractors.NewRunner(HeavySlots), Lookup: func(key string) (string, bool) {
		v, ok := env[key]
		return v, ok
	}})
	t.Cleanup(func() { reg.Close() })
	return reg
}
