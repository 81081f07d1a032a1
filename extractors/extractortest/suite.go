package extractortest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/jsonleaf"
)

// garbageNames are the names garbage content is offered under, so that
// extractors that trust a name (or a MIME type derived from it) meet it.
var garbageNames = []string{"garbage.mp4", "garbage.jpg", "garbage.png", "garbage.wav", "garbage.pdf",
	"garbage.docx", "garbage.zip", "garbage.srt", "garbage.vtt", "garbage.txt", "garbage.eml", "garbage.xml"}

// Suite checks every implemented, available extractor of reg against the
// contract of extractors.Extractor:
//
//   - with its context already cancelled it returns promptly with a
//     transient error;
//   - on an empty file and on garbage content under many names it neither
//     panics nor hangs, and a refusal is deterministic (not Transient);
//   - on each of samples (paths of real files) it returns either an error
//     or data that encodes as a JSON object, whose every leaf value is a
//     declared field of the right type, and whose artifacts, segment
//     thumbnails and face crops exist below the artifact directory.
//
// It returns the outcomes on the samples, by extractor and sample base
// name, for further checks by the caller.
func Suite(t *testing.T, reg *extractors.Registry, samples []string) map[string]map[string]extractors.Outcome {
	t.Helper()
	results := map[string]map[string]extractors.Outcome{}
	for _, info := range reg.All() {
		if ok, _ := reg.Available(info.Name); !ok {
			continue
		}
		results[info.Name] = map[string]extractors.Outcome{}
		t.Run(info.Name, func(t *testing.T) {
			checkCancelled(t, reg, info)
			dir := t.TempDir()
			empty := filepath.Join(dir, "empty")
			if err := os.WriteFile(empty, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			checkSurvives(t, reg, info, "empty.bin", empty, 0)
			rng := rand.New(rand.NewPCG(1, uint64(len(info.Name))))
			garbage := make([]byte, 64<<10)
			for i := range garbage {
				garbage[i] = byte(rng.UintN(256))
			}
			gpath := filepath.Join(dir, "garbage")
			if err := os.WriteFile(gpath, garbage, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, name := range garbageNames {
				checkSurvives(t, reg, info, name, gpath, int64(len(garbage)))
			}
			for _, s := range samples {
				o := checkSample(t, reg, info, s)
				results[info.Name][filepath.Base(s)] = o
			}
		})
	}
	return results
}

const suiteLimit = 2 * time.Minute

func input(t *testing.T, name, path string, size int64) *extractors.Input {
	return &extractors.Input{ItemID: "0123456789abcdef0123456789abcdef", Name: name, Path: path, Size: size,
		MIME: mimeOf(path), ArtifactDir: filepath.Join(t.TempDir(), "artifacts")}
}

func mimeOf(path string) string {
	o := extractors.RunOne(context.Background(), nil, "mime_type", &extractors.Input{Name: path, Path: path, Size: -1}, time.Minute)
	m, _ := o.Data["mime_type"].(string)
	return m
}

func checkCancelled(t *testing.T, reg *extractors.Registry, info extractors.Info) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	o := extractors.RunOne(ctx, reg, info.Name, input(t, "x.bin", "/dev/null", 0), suiteLimit)
	if o.Err == nil || !extractors.IsTransient(o.Err) {
		t.Errorf("cancelled context: err = %v, want a transient error", o.Err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("cancelled context: returned after %s", took)
	}
}

func checkSurvives(t *testing.T, reg *extractors.Registry, info extractors.Info, name, path string, size int64) {
	t.Helper()
	survives(t, reg, info, input(t, name, path, size), suiteLimit)
}

// Survives runs the extractor name of reg on in, a broken or hostile file,
// and fails the test if it panicked, hung (ran into its time limit) or
// gave a Transient error on it (the worker would retry it for ever), or
// if the data it gave holds an undeclared field. Refusing the file with a
// deterministic error is what is expected; the outcome is returned for
// further checks.
func Survives(t testing.TB, reg *extractors.Registry, name string, in *extractors.Input) extractors.Outcome {
	t.Helper()
	info, ok := reg.Get(name)
	if !ok {
		t.Fatalf("survives: %s is not registered", name)
	}
	return survives(t, reg, info, in, RunLimit)
}

func survives(t testing.TB, reg *extractors.Registry, info extractors.Info, in *extractors.Input, limit time.Duration) extractors.Outcome {
	t.Helper()
	o := extractors.RunOne(context.Background(), reg, info.Name, in, limit)
	var pe *extractors.PanicError
	switch {
	case errors.As(o.Err, &pe):
		t.Errorf("%s on %s: panicked: %v\n%s", info.Name, in.Name, pe.Value, pe.Stack)
	case o.Err != nil && strings.Contains(o.Err.Error(), "time limit"):
		t.Errorf("%s on %s: hung: %v", info.Name, in.Name, o.Err)
	case o.Err != nil && extractors.IsTransient(o.Err):
		t.Errorf("%s on %s: transient error on bad content (it would be retried for ever): %v", info.Name, in.Name, o.Err)
	case o.Err == nil:
		checkOutput(t, info, in.Name, o)
	}
	return o
}

func checkSample(t *testing.T, reg *extractors.Registry, info extractors.Info, path string) extractors.Outcome {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("sample: %v", err)
	}
	in := input(t, filepath.Base(path), path, fi.Size())
	o := extractors.RunOne(context.Background(), reg, info.Name, in, suiteLimit)
	dir := filepath.Join(in.ArtifactDir, info.Name) // each extractor writes below its own directory
	var pe *extractors.PanicError
	if errors.As(o.Err, &pe) {
		t.Errorf("%s: panicked: %v\n%s", filepath.Base(path), pe.Value, pe.Stack)
	}
	if o.Err == nil {
		checkOutput(t, info, filepath.Base(path), o)
		for _, a := range o.Artifacts {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(a.Path))); err != nil {
				t.Errorf("%s: artifact %s: %v", filepath.Base(path), a.Path, err)
			}
		}
		for _, s := range o.Segments {
			if s.Thumbnail != nil {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(s.Thumbnail.Path))); err != nil {
					t.Errorf("%s: segment thumbnail %s: %v", filepath.Base(path), s.Thumbnail.Path, err)
				}
			}
			for _, p := range s.Summary.People {
				if p.ThumbnailPath == "" {
					continue
				}
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p.ThumbnailPath))); err != nil {
					t.Errorf("%s: face crop %s: %v", filepath.Base(path), p.ThumbnailPath, err)
				}
			}
		}
	}
	return o
}

// checkOutput checks that the data is a JSON object whose leaves are
// declared fields of the right type.
func checkOutput(t testing.TB, info extractors.Info, name string, o extractors.Outcome) {
	t.Helper()
	var v any
	if err := json.Unmarshal(o.JSON, &v); err != nil {
		t.Errorf("%s: data is not JSON: %v", name, err)
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: data is %T, want an object", name, v)
		return
	}
	declared := map[string]extractors.FieldType{}
	for _, f := range info.Fields {
		declared[f.Path] = f.Type
	}
	for _, p := range UndeclaredLeaves(obj, declared) {
		t.Errorf("%s: %s", name, p)
	}
}

// UndeclaredLeaves lists the leaf values of data (through objects and
// lists) whose path is not declared, or whose JSON type does not fit the
// declared type, as "path: problem" lines, sorted.
func UndeclaredLeaves(data map[string]any, declared map[string]extractors.FieldType) []string {
	var out []string
	jsonleaf.Walk(data, func(l jsonleaf.Leaf) {
		typ, ok := declared[l.Path]
		if !ok {
			out = append(out, fmt.Sprintf("%s: undeclared field (%T)", l.Path, l.Value))
			return
		}
		if !fits(typ, l.Value) {
			out = append(out, fmt.Sprintf("%s: declared %s, got %T %v", l.Path, typ, l.Value, l.Value))
		}
	})
	sort.Strings(out)
	return out
}

func fits(typ extractors.FieldType, v any) bool {
	switch v := v.(type) {
	case float64:
		return typ == extractors.TypeNumber
	case bool:
		return typ == extractors.TypeBool
	case string:
		if typ == extractors.TypeDate {
			_, err := time.Parse(time.RFC3339Nano, v)
			return err == nil
		}
		return typ == extractors.TypeString || typ == extractors.TypeText
	}
	return false
}
