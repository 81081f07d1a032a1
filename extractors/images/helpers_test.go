package images

import (
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// registry holds the extractors of this package, configured with lookup
// as the environment, closed when the test ends.
func registry(t testing.TB, lookup map[string]string) *extractors.Registry {
	return extractortest.Registry(t, lookup, "exiv2", "thumbnailer")
}

// run runs one extractor of reg on a file, as a harvest would: the MIME
// type given, artifacts below a fresh directory.
func run(t testing.TB, reg *extractors.Registry, name, path, mime string) (extractors.Outcome, string) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	in := extractortest.Input(t, abs)
	in.MIME = mime
	return extractortest.Run(t, reg, name, in), filepath.Join(in.ArtifactDir, name)
}
