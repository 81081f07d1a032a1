package places

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// registry holds the base extractors and the named ones of this package,
// configured with env (unset variables take their defaults).
func registry(t testing.TB, env map[string]string, names ...string) *extractors.Registry {
	return extractortest.Registry(t, env, append([]string{"store", "mime_type"}, names...)...)
}

// run runs one extractor of reg on the file at path as a harvest does,
// the extractors before it having given prior.
func run(t testing.TB, reg *extractors.Registry, name, path string, prior map[string]json.RawMessage) extractors.Outcome {
	t.Helper()
	in := extractortest.Input(t, path)
	in.Prior = prior
	return extractortest.Run(t, reg, name, in)
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

func str(m map[string]any, path string) string {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	s, _ := v.(string)
	return s
}
