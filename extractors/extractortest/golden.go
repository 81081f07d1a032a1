package extractortest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .golden files of extractortest.Golden from what the code gives now")

// Golden runs parse on every file of dir whose name ends with inExt
// (recorded tool output, or a sample file) and compares what it returns,
// encoded as indented JSON, with the file of the same name ending in
// ".golden". With -update the .golden files are written instead. A parse
// error is compared too (as {"error": text}), so that refusals are pinned
// as well as results. Each file is a subtest named after it.
func Golden(t *testing.T, dir, inExt string, parse func(t *testing.T, name string, in []byte) (any, error)) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), inExt) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("golden: no *%s file in %s", inExt, dir)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			v, perr := parse(t, name, in)
			if perr != nil {
				v = map[string]string{"error": perr.Error()}
			}
			got, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				t.Fatalf("encode result: %v", err)
			}
			got = append(got, '\n')
			goldenPath := filepath.Join(dir, strings.TrimSuffix(name, inExt)+".golden")
			if *update {
				if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run go test -update to record it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s:\n got: %s\nwant: %s", name, goldenPath, got, want)
			}
		})
	}
}
