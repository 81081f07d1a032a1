package storage_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/storage"
)

// FuzzSplitUploadPath: whatever is accepted, joined to the store root,
// names something strictly inside it, without any normalisation taking
// place (so the accepted spelling is the only spelling of that item).
func FuzzSplitUploadPath(f *testing.F) {
	for _, s := range badUploadPaths {
		f.Add(s)
	}
	for _, s := range []string{"a", "a/b", "c/d/e.jpg", "é/ü", "a..b/c", "uploads/x y", "a/b/"} {
		f.Add(s)
	}
	const root = "/srv/data/uploadstore"
	f.Fuzz(func(t *testing.T, rel string) {
		c, p, err := storage.SplitUploadPath(rel)
		if err != nil {
			if !errors.Is(err, storage.ErrBadPath) {
				t.Fatalf("%q: error %v does not wrap ErrBadPath", rel, err)
			}
			return
		}
		if c == "" || p == "" || strings.Contains(c, "/") {
			t.Fatalf("%q: container %q path %q", rel, c, p)
		}
		joined := filepath.Join(root, c, filepath.FromSlash(p))
		if joined != root+"/"+c+"/"+p {
			t.Fatalf("%q: join normalised the path to %q", rel, joined)
		}
		r, err := filepath.Rel(root, joined)
		if err != nil || !filepath.IsLocal(r) || !strings.HasPrefix(joined, root+"/") {
			t.Fatalf("%q: %q leaves the root", rel, joined)
		}
		for _, seg := range strings.Split(c+"/"+p, "/") {
			if seg == "" || seg[0] == '.' || strings.ContainsAny(seg, "\\\x00") {
				t.Fatalf("%q: accepted segment %q", rel, seg)
			}
		}
	})
}
