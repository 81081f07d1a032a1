package extractors

import "testing"

// A Shape gives each extractor its fields with its own docs and extras,
// and refuses a doc for a path outside it.
func TestShapeFields(t *testing.T) {
	t.Parallel()
	s := Shape{{Path: "a", Type: TypeNumber, Doc: "shared"}, {Path: "b", Type: TypeString, Doc: "shared b"}}
	got := s.Fields(map[string]string{"b": "own b"}, Field{Path: "c", Type: TypeBool, Doc: "only mine"})
	if len(got) != 3 || got[0].Doc != "shared" || got[1].Doc != "own b" || got[1].Type != TypeString || got[2].Path != "c" {
		t.Errorf("Fields = %+v", got)
	}
	if s[1].Doc != "shared b" {
		t.Error("Fields changed the shape")
	}
	defer func() {
		if recover() == nil {
			t.Error("a doc for a path outside the shape accepted")
		}
	}()
	s.Fields(map[string]string{"z": "nowhere"})
}
