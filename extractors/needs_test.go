package extractors

import (
	"slices"
	"strings"
	"testing"
)

// Needs: a selection brings what its extractors read, transitively, once
// each, in an order fixed by the selection; Run places a need before the
// extractor that reads it; a registration that would close a cycle of
// Needs is refused, and the registry is left as it was.
func TestNeeds(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	newHashes := func(Env) (Extractor, error) { return hashes{}, nil }
	mk := func(name string, needs ...string) Info {
		return Info{Name: name, Family: FamilyTechnical, Version: "1", Implemented: true, New: newHashes, Needs: needs}
	}
	// "words" reads what "text" and "ocr" read; "ocr" reads "frames";
	// "summary" reads "words" and "frames"; "late" is not registered yet.
	for _, info := range []Info{mk("text"), mk("frames"), mk("ocr", "frames"), mk("words", "text", "ocr"),
		mk("summary", "words", "frames", "late"), mk("plain")} {
		r.MustRegister(info)
	}
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"plain"}, []string{"plain"}},
		{[]string{"words"}, []string{"words", "text", "ocr", "frames"}},
		{[]string{"plain", "summary"}, []string{"plain", "summary", "words", "text", "ocr", "frames", "late"}},
		// A need asked for by name stays where the caller put it.
		{[]string{"frames", "words"}, []string{"frames", "words", "text", "ocr"}},
	} {
		if got := r.WithNeeds(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("WithNeeds(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}

	// Needs order the run like After.
	if got := r.Order([]string{"words", "ocr", "text", "frames"}); !slices.Equal(got, []string{"text", "frames", "ocr", "words"}) {
		t.Errorf("Order = %v", got)
	}

	for _, tc := range []struct {
		info Info
		want string
	}{
		{mk("self", "self"), "needs itself"},
		{mk("late", "summary"), "needs cycle late -> summary -> late"},
		{mk("frames", "ocr"), "duplicate name"},
	} {
		if err := r.Register(tc.info); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Register(%s needs %v) = %v, want %q", tc.info.Name, tc.info.Needs, err, tc.want)
		}
	}
	// A placeholder replaced by an implementation that would close a cycle
	// is refused too, and the placeholder stays.
	r.MustRegister(Info{Name: "pending", Family: FamilyTechnical, Version: "1"})
	r.MustRegister(mk("reader", "pending"))
	if err := r.Register(mk("pending", "reader")); err == nil || !strings.Contains(err.Error(), "needs cycle pending -> reader -> pending") {
		t.Errorf("implementation closing a cycle: %v", err)
	}
	if info, _ := r.Get("pending"); info.Implemented || len(info.Needs) != 0 {
		t.Errorf("refused registration changed the registry: %+v", info)
	}
	if got := r.WithNeeds([]string{"reader"}); !slices.Equal(got, []string{"reader", "pending"}) {
		t.Errorf("WithNeeds(reader) = %v", got)
	}
}
