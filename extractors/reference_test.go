package extractors_test

import (
	"slices"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// TestDefaultKnowsReference holds the Default registry of this package
// alone (no family linked) to the reference's list: every name known, the
// base extractors implemented, the others placeholders.
func TestDefaultKnowsReference(t *testing.T) {
	t.Parallel()
	want := extractortest.ReferenceNames()
	if len(want) != 46 {
		t.Fatalf("reference list has %d names, want 46", len(want))
	}
	if got := extractors.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v\nwant %v", got, want)
	}
	implemented := []string{}
	for _, info := range extractors.Default.All() {
		if info.DisplayName == "" || info.Version == "" {
			t.Errorf("%s: DisplayName %q Version %q, want both set", info.Name, info.DisplayName, info.Version)
		}
		if info.Implemented {
			implemented = append(implemented, info.Name)
			if info.New == nil || !info.DefaultEnabled {
				t.Errorf("%s: implemented without New or not enabled by default", info.Name)
			}
			continue
		}
		if info.New != nil || info.DefaultEnabled {
			t.Errorf("%s: not implemented but has New or is enabled by default", info.Name)
		}
		if ok, reason := extractors.Default.Available(info.Name); ok || reason != "not implemented in this release" {
			t.Errorf("Available(%s) = %v, %q", info.Name, ok, reason)
		}
	}
	if want := []string{"hashes", "mime_type", "store"}; !slices.Equal(implemented, want) {
		t.Errorf("implemented = %v, want %v", implemented, want)
	}
	for _, name := range implemented {
		if ok, reason := extractors.Default.Available(name); !ok {
			t.Errorf("Available(%s) = false, %q", name, reason)
		}
	}
}
