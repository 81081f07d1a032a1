package families_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// TestInlineExtractorsWriteNothing holds every registered Inline extractor
// to what the worker relies on (extractors.Info.Inline): run on a file in
// memory and on disk, none makes its artifact directory.
func TestInlineExtractorsWriteNothing(t *testing.T) {
	t.Parallel()
	var inline []string
	for _, info := range extractors.Default.All() {
		if info.Inline {
			inline = append(inline, info.Name)
		}
	}
	if len(inline) == 0 {
		t.Fatal("no Inline extractor registered")
	}
	const sample = "../testdata/exif.jpg"
	content, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []*extractors.Input{
		{ItemID: "i", Name: "exif.jpg", Content: content, Size: int64(len(content))},
		{ItemID: "i", Name: "exif.jpg", Path: sample, Size: int64(len(content))},
	} {
		in.ArtifactDir = filepath.Join(t.TempDir(), "work")
		for _, o := range extractors.Run(context.Background(), extractors.Default, inline, in, time.Minute) {
			if o.Err != nil || len(o.Artifacts) > 0 {
				t.Fatalf("%s: %v, artifacts %v", o.Name, o.Err, o.Artifacts)
			}
		}
		if _, err := os.Stat(in.ArtifactDir); !os.IsNotExist(err) {
			t.Fatalf("%v wrote below their artifact directory (in memory: %v)", inline, in.Content != nil)
		}
	}
	if a := extractors.Default.Access("no_such_extractor"); a.Known || a.Inline {
		t.Fatalf("Access of an unknown extractor: %+v", a)
	}
	if a := extractors.Default.Access("hashes"); !a.Known || !a.Implemented || !a.Inline {
		t.Fatalf("Access(hashes): %+v", a)
	}
}
