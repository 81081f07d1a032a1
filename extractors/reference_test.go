package extractors_test

import (
	"slices"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// TestDefaultHoldsTheBase holds the Default registry of this package alone
// (no family linked) to the base extractors it declares, implemented and
// enabled by default. Every other extractor is declared once, by its
// family (extractors/families links them all and checks the reference's
// list there).
func TestDefaultHoldsTheBase(t *testing.T) {
	t.Parallel()
	if got, want := extractors.Names(), []string{"hashes", "mime_type", "store"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	for _, info := range extractors.Default.All() {
		if info.DisplayName == "" || info.Version == "" || !info.Implemented || info.New == nil || !info.DefaultEnabled {
			t.Errorf("%s: %+v", info.Name, info)
		}
		if ok, reason := extractors.Default.Available(info.Name); !ok {
			t.Errorf("Available(%s) = false, %q", info.Name, reason)
		}
	}
}
