package extractors

import (
	"strings"
	"testing"
)

// Register refuses an Info whose family is missing or not one of
// Families, naming it; every family has a display name and appears once.
func TestRegisterRefusesUnknownFamily(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	for _, f := range []Family{"", "Technical", "music"} {
		err := r.Register(Info{Name: "x", Family: f, Version: "1"})
		if err == nil || !strings.Contains(err.Error(), "family") {
			t.Errorf("Register with family %q: %v, want an error naming the family", f, err)
		}
	}
	if len(r.Names()) != 0 {
		t.Errorf("refused registrations left %v", r.Names())
	}
	seen := map[Family]bool{}
	for _, f := range Families() {
		if seen[f] || f.Name() == "" || !f.Known() {
			t.Errorf("family %q: duplicate or without a display name", f)
		}
		seen[f] = true
		if err := NewRegistry().Register(Info{Name: "x", Family: f, Version: "1"}); err != nil {
			t.Errorf("Register with family %q: %v", f, err)
		}
	}
	for _, info := range Default.All() {
		if !info.Family.Known() {
			t.Errorf("%s: family %q", info.Name, info.Family)
		}
	}
}
