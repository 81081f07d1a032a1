package extractortest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Samples returns the sample files of dir (a package's testdata, copied
// from Debian packages): its regular files, sorted, without the Markdown
// (the README's table of origins) and the .golden files (expected output,
// not input). Sub-directories (recorded tool output, fuzz corpora) are not
// samples.
func Samples(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("samples: %v", err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".golden") {
			continue
		}
		out = append(out, filepath.Join(dir, name))
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatalf("samples: no sample file in %s", dir)
	}
	return out
}

// CopyFile copies the file from (a sample) to to, making to's directory:
// for tests that need a sample under another name or in a folder of their
// own, since a test never writes into testdata.
func CopyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatalf("copy sample: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatalf("copy sample: %v", err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatalf("copy sample: %v", err)
	}
}
