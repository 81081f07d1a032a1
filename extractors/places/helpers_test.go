package places

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// registry holds the base extractors and the named ones of this package,
// configured with env (unset variables take their defaults).
func registry(t testing.TB, env map[string]string, names ...string) *extractors.Registry {
	t.Helper()
	reg := extractors.NewRegistry()
	for _, n := range append([]string{"store", "mime_type"}, names...) {
		info, ok := extractors.Default.Get(n)
		if !ok {
			t.Fatalf("%s not registered", n)
		}
		reg.MustRegister(info)
	}
	reg.Configure(extractors.Config{Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	t.Cleanup(func() { reg.Close() })
	return reg
}

// input is an item for path as a harvest gives it: mime_type run, and the
// given Prior.
func input(t testing.TB, reg *extractors.Registry, path string, prior map[string]json.RawMessage) *extractors.Input {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	in := &extractors.Input{ItemID: "0123456789abcdef0123456789abcdef", Name: filepath.Base(path), Path: path,
		Size: fi.Size(), ArtifactDir: t.TempDir(), Prior: prior}
	mt := extractors.RunOne(context.Background(), reg, "mime_type", in, time.Minute)
	in.MIME, _ = mt.Data["mime_type"].(string)
	return in
}

// exiftoolPrior is what exiv2 would give for the file's GPS and capture
// time, read with the bare exiftool: the expected input, made without the
// code under test.
func exiftoolPrior(t testing.TB, path string) map[string]json.RawMessage {
	t.Helper()
	out, err := exec.Command("exiftool", "-n", "-s3", "-GPSLatitude", "-GPSLongitude", path).Output()
	if err != nil {
		t.Fatalf("exiftool: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		t.Fatalf("exiftool gave %q", out)
	}
	lat, _ := strconv.ParseFloat(f[0], 64)
	lon, _ := strconv.ParseFloat(f[1], 64)
	raw, _ := json.Marshal(map[string]any{"gps": map[string]any{"latitude": lat, "longitude": lon}})
	return map[string]json.RawMessage{"exiv2": raw}
}

func decode(t testing.TB, o extractors.Outcome) map[string]any {
	t.Helper()
	if o.Err != nil {
		t.Fatalf("%s: %v", o.Name, o.Err)
	}
	var m map[string]any
	if err := json.Unmarshal(o.JSON, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func str(m map[string]any, path string) string {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	s, _ := v.(string)
	return s
}
