package e2e

import (
	"debug/buildinfo"
	"runtime/debug"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testproc"
)

// The binary the process tests start is built with the build settings of
// the tests themselves (make test's -tags=nomsgpack and -trimpath): with
// other tags its dependencies would be compiled a second time, gin and
// every package that imports it among them (every package, without the
// same -trimpath).
func TestBinaryIsBuiltLikeTheTests(t *testing.T) {
	own, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	bin, err := buildinfo.ReadFile(testproc.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"-tags", "-trimpath", "CGO_ENABLED", "GOAMD64"} {
		if got, want := testproc.BuildSetting(bin, key), testproc.BuildSetting(own, key); got != want {
			t.Errorf("the metaharvest binary was built with %s %q, the tests with %q", key, got, want)
		}
	}
}
