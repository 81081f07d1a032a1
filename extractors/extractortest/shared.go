package extractortest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Shared makes test files once for every test of a package that asks for
// them (clips that take ffmpeg seconds to render), in a temporary
// directory that the package's TestMain removes with Remove after m.Run.
// The zero value is ready to use; it is safe for parallel tests.
type Shared struct {
	mu    sync.Mutex
	dir   string
	files map[string]*sharedFile
}

type sharedFile struct {
	once sync.Once
	path string // set once made
}

// File returns the path of the file name, made by render the first time a
// test asks for it. render writes the file at the path it is given, in a
// directory of its own where it may leave what the file is made from (a
// sidecar, a second rendering); tests only read them. A render that fails
// fails the test that asked first, and every later one that asks.
func (s *Shared) File(t testing.TB, name string, render func(t testing.TB, path string)) string {
	t.Helper()
	s.mu.Lock()
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "metaharvest-test-")
		if err != nil {
			s.mu.Unlock()
			t.Fatalf("shared files: %v", err)
		}
		s.dir, s.files = dir, map[string]*sharedFile{}
	}
	f := s.files[name]
	if f == nil {
		f = &sharedFile{}
		s.files[name] = f
	}
	own := filepath.Join(s.dir, name+".d")
	s.mu.Unlock()
	f.once.Do(func() {
		if err := os.MkdirAll(own, 0o755); err != nil {
			t.Fatalf("shared file %s: %v", name, err)
		}
		p := filepath.Join(own, name)
		render(t, p)
		f.path = p // not reached when render failed the test
	})
	if f.path == "" {
		t.Fatalf("shared file %s could not be made (see the test that asked first)", name)
	}
	return f.path
}

// Remove deletes every file made; for TestMain, after m.Run.
func (s *Shared) Remove() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir, s.files = "", nil
	}
}
