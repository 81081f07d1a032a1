package extractortest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// TestSuiteOnBaseExtractors runs the suite over the extractors of the root
// package on its real sample files.
func TestSuiteOnBaseExtractors(t *testing.T) {
	t.Parallel()
	samples, _ := filepath.Glob("../testdata/*.*")
	var files []string
	for _, s := range samples {
		if !strings.HasSuffix(s, ".md") {
			files = append(files, s)
		}
	}
	got := Suite(t, extractors.Default, files)
	if o := got["hashes"]["exif.jpg"]; o.Err != nil || o.Data["sha256"] != "c3034419772b425134fd69f5cdc43143038b36c9202d8a93ca74d207da09aa2e" {
		t.Errorf("hashes of exif.jpg: %+v", o)
	}
}

func TestUndeclaredLeaves(t *testing.T) {
	t.Parallel()
	data := map[string]any{
		"video":   map[string]any{"duration": 1.5, "codec": "h264"},
		"streams": []any{map[string]any{"index": 0.0}, map[string]any{"index": "one"}},
		"when":    "yesterday",
		"none":    nil,
	}
	got := UndeclaredLeaves(data, map[string]extractors.FieldType{
		"video.duration": extractors.TypeNumber, "streams.index": extractors.TypeNumber, "when": extractors.TypeDate,
	})
	want := []string{
		"streams.index: declared number, got string one",
		"video.codec: undeclared field (string)",
		"when: declared date, got string yesterday",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.golden"), []byte("{\n  \"n\": 5\n}\n"), 0o644)
	Golden(t, dir, ".txt", func(t *testing.T, name string, in []byte) (any, error) {
		return map[string]int{"n": len(in)}, nil
	})
}
