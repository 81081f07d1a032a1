package ocr

import (
	"os"
	"sync"
	"testing"
)

// clips are test videos rendered once for the package's tests (ffmpeg is
// the slow part), below a directory removed when they end.
var clips struct {
	dir  string
	once map[string]*sync.Once
	path map[string]string
	err  map[string]string
	mu   sync.Mutex
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "metaharvest-ocr-test-")
	if err != nil {
		panic(err)
	}
	clips.dir = dir
	clips.once, clips.path, clips.err = map[string]*sync.Once{}, map[string]string{}, map[string]string{}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedClip renders a clip once for every test that asks, with make
// (which writes it at the path it is given).
func sharedClip(t *testing.T, name string, make func(t *testing.T, path string)) string {
	t.Helper()
	clips.mu.Lock()
	once := clips.once[name]
	if once == nil {
		once = &sync.Once{}
		clips.once[name] = once
	}
	clips.mu.Unlock()
	once.Do(func() {
		p := clips.dir + "/" + name
		ok := t.Run("render "+name, func(t *testing.T) { make(t, p) })
		clips.mu.Lock()
		defer clips.mu.Unlock()
		if ok {
			clips.path[name] = p
		} else {
			clips.err[name] = "rendering failed"
		}
	})
	clips.mu.Lock()
	defer clips.mu.Unlock()
	if p, ok := clips.path[name]; ok {
		return p
	}
	t.Fatalf("clip %s: %s", name, clips.err[name])
	return ""
}
