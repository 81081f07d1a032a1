package images

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// registry holds the extractors of this package, made with a Runner of two
// heavy slots, closed when the test ends.
func registry(t testing.TB, lookup map[string]string) *extractors.Registry {
	t.Helper()
	reg := extractors.NewRegistry()
	for _, name := range []string{"exiv2", "thumbnailer"} {
		info, ok := extractors.Default.Get(name)
		if !ok || !info.Implemented {
			t.Fatalf("%s not registered", name)
		}
		reg.MustRegister(info)
	}
	reg.Configure(extractors.Config{Runner: extractors.NewRunner(2), Lookup: func(k string) (string, bool) {
		v, ok := lookup[k]
		return v, ok
	}})
	t.Cleanup(func() { reg.Close() })
	return reg
}

// run runs one extractor of reg on a file, as a harvest would: the MIME
// type given, artifacts below a fresh directory.
func run(t testing.TB, reg *extractors.Registry, name, path, mime string) (extractors.Outcome, string) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := &extractors.Input{ItemID: "0123456789abcdef0123456789abcdef", Name: filepath.Base(path), Path: abs, Size: fi.Size(),
		MIME: mime, ArtifactDir: dir}
	o := extractors.RunOne(context.Background(), reg, name, in, 2*time.Minute)
	return o, filepath.Join(dir, name)
}
