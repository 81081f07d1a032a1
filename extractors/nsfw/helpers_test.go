package nsfw

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/vision"
)

// sidecarDir is the sidecar of this clone, installed by deploy/setup.sh.
var sidecarDir = func() string {
	d, err := filepath.Abs("../../deploy/vision")
	if err != nil {
		panic(err)
	}
	return d
}()

// shared is the registry most tests use, and sharedX its extractor: one
// sidecar for the package, whose model loads once. It is nil when the
// sidecar is not installed (requireSidecar fails those tests).
var (
	shared  *extractors.Registry
	sharedX *nsfw
)

func TestMain(m *testing.M) {
	shared = newRegistry(map[string]string{"NSFW_SIDECAR_DIR": sidecarDir})
	if x, err := newNSFW(envOf(nil)); err == nil {
		sharedX = x.(*nsfw)
		info, _ := shared.Get("nsfw")
		info.New = func(extractors.Env) (extractors.Extractor, error) { return sharedX, nil }
		shared = extractors.NewRegistry()
		shared.MustRegister(info)
		// Its sidecar check reads the settings too.
		shared.Configure(extractors.Config{Runner: extractors.NewRunner(2), Lookup: func(k string) (string, bool) {
			return sidecarDir, k == "VISION_SIDECAR_DIR"
		}})
	}
	code := m.Run()
	shared.Close()
	os.Exit(code)
}

func newRegistry(env map[string]string) *extractors.Registry {
	reg := extractors.NewRegistry()
	info, ok := extractors.Default.Get("nsfw")
	if !ok || !info.Implemented {
		panic(fmt.Sprintf("nsfw: %+v", info))
	}
	reg.MustRegister(info)
	reg.Configure(extractors.Config{Runner: extractors.NewRunner(2), Lookup: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}})
	return reg
}

// envOf is the Env of the extractor with the default settings, the
// sidecar of this clone, and set (by Setting.Name) over them.
func envOf(set map[string]string) extractors.Env {
	vals := map[string]string{}
	for _, s := range settings {
		vals[s.Name] = s.Default
	}
	vals["dir"] = sidecarDir
	for k, v := range set {
		vals[k] = v
	}
	return extractors.Env{Settings: vals, Declared: settings, Runner: extractors.NewRunner(2), Logger: slog.Default()}
}

// registry is a registry of its own for a test, closed when it ends.
func registry(t testing.TB, env map[string]string) *extractors.Registry {
	t.Helper()
	reg := newRegistry(env)
	t.Cleanup(func() { reg.Close() })
	return reg
}

// requireSidecar fails the test when deploy/setup.sh has not installed
// the sidecar: the tests need the real one.
func requireSidecar(t testing.TB) {
	t.Helper()
	if _, err := vision.Installed(sidecarDir); err != nil || sharedX == nil {
		t.Fatalf("%v", err)
	}
}

// direct makes the extractor itself (not through a registry), with the
// default settings overridden by set (by Setting.Name), for tests that
// reach into its sidecar pool; closed when the test ends.
// Its sidecar starts on first use, so that a test may change the pool's
// limits first.
func direct(t testing.TB, set map[string]string) *nsfw {
	t.Helper()
	x, err := buildOn(envOf(set), vision.Own)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// input is an Input for a direct Extract call.
func input(t testing.TB, path, mime string) *extractors.Input {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return &extractors.Input{ItemID: "0123456789abcdef0123456789abcdef", Name: filepath.Base(path), Path: abs, Size: -1,
		MIME: mime, ArtifactDir: filepath.Join(t.TempDir(), "nsfw")}
}

// run runs nsfw of reg on a file as a harvest would: the MIME type
// given, prior results, artifacts below root (a fresh directory when "").
func run(t testing.TB, reg *extractors.Registry, path, mime string, prior map[string]json.RawMessage, root string) extractors.Outcome {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if root == "" {
		root = t.TempDir()
	}
	in := &extractors.Input{ItemID: "0123456789abcdef0123456789abcdef", Name: filepath.Base(path), Path: abs, Size: -1, MIME: mime,
		ArtifactDir: root, Prior: prior}
	return extractors.RunOne(context.Background(), reg, "nsfw", in, 5*time.Minute)
}
