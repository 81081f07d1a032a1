package extractortest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// ItemID is the item id of the inputs the helpers make: 32 hex digits, as
// the worker gives.
const ItemID = "0123456789abcdef0123456789abcdef"

// RunLimit is the time limit of one extractor run by Run and Harvest (an
// extractor's own Info.Timeout wins): generous, since it only ends a hang,
// and a loaded machine decodes slowly.
const RunLimit = 5 * time.Minute

// Input returns the input of a harvest of the file at path: named after
// it, with its size (the file must exist; write a literal Input for a path
// that does not), and an artifact directory of its own below t.TempDir()
// that does not exist yet, as the worker gives it.
func Input(t testing.TB, path string) *extractors.Input {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("input: %v", err)
	}
	return &extractors.Input{ItemID: ItemID, Name: filepath.Base(path), Path: path, Size: fi.Size(),
		ArtifactDir: filepath.Join(t.TempDir(), "artifacts")}
}

// Run runs the extractor name of reg once on in, whatever its Accept says
// (extractors.RunOne), as a harvest would run it: when in.MIME is empty
// and reg holds mime_type, the file's MIME type is detected first and set
// on in.
func Run(t testing.TB, reg *extractors.Registry, name string, in *extractors.Input) extractors.Outcome {
	t.Helper()
	if _, ok := reg.Get("mime_type"); ok && in.MIME == "" && name != "mime_type" {
		o := extractors.RunOne(context.Background(), reg, "mime_type", in, RunLimit)
		in.MIME, _ = o.Data["mime_type"].(string)
	}
	return extractors.RunOne(context.Background(), reg, name, in, RunLimit)
}

// Harvest runs names on in in one harvest, as the worker does
// (extractors.Run: the base extractors of reg first, each extractor's
// Accept judged, After honoured, one shared pass), and returns the
// outcomes by extractor name; an extractor whose Accept refused the file
// has none.
func Harvest(t testing.TB, reg *extractors.Registry, in *extractors.Input, names ...string) map[string]extractors.Outcome {
	t.Helper()
	outs := map[string]extractors.Outcome{}
	for _, o := range extractors.Run(context.Background(), reg, append(reg.AlwaysNames(), names...), in, RunLimit) {
		outs[o.Name] = o
	}
	return outs
}

// Data returns the data of a successful outcome as the item stores it
// (decoded from its JSON: numbers are float64), and fails the test on an
// error.
func Data(t testing.TB, o extractors.Outcome) map[string]any {
	t.Helper()
	if o.Err != nil {
		t.Fatalf("%s: %v", o.Name, o.Err)
	}
	var m map[string]any
	if err := json.Unmarshal(o.JSON, &m); err != nil {
		t.Fatalf("%s: data: %v", o.Name, err)
	}
	return m
}
