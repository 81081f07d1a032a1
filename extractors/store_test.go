package extractors

import (
	"context"
	"maps"
	"testing"
)

func TestStoreGolden(t *testing.T) {
	t.Parallel()
	// Sizes from ls -l of testdata/.
	for _, tc := range []struct {
		file string
		size int64
		ext  string
	}{
		{"exif.jpg", 80603, "jpg"},
		{"video-001.png", 29228, "png"},
		{"sample.mov", 179789, "mov"},
		{"sample.docx", 4062, "docx"},
		{"pluck-pcm16.wav", 13370, "wav"},
	} {
		for _, size := range []int64{tc.size, -1} { // -1: unknown to the storage, taken from the file
			res, err := storeData{}.Extract(context.Background(), &Input{Name: tc.file, Path: "testdata/" + tc.file, Size: size})
			if err != nil {
				t.Fatalf("%s: %v", tc.file, err)
			}
			want := map[string]any{"name": tc.file, "extension": tc.ext, "size": tc.size}
			if !maps.Equal(res.Data, want) {
				t.Errorf("%s (size %d): %v, want %v", tc.file, size, res.Data, want)
			}
		}
	}
}

func TestStoreTrustsStorageSize(t *testing.T) {
	t.Parallel()
	// The storage's size and name are the item's, whatever the local copy is called.
	res, err := storeData{}.Extract(context.Background(), &Input{Name: "clip.MP4", Path: "testdata/sample.mov", Size: 12})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"name": "clip.MP4", "extension": "mp4", "size": int64(12)}; !maps.Equal(res.Data, want) {
		t.Errorf("got %v, want %v", res.Data, want)
	}
	if _, err := (storeData{}).Extract(context.Background(), &Input{Name: "gone", Path: "testdata/nosuch", Size: -1}); !IsTransient(err) {
		t.Errorf("missing local copy: err = %v, want transient", err)
	}
}

func TestExtension(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"IMG_0001.JPG":           "jpg",
		"archive.tar.gz":         "gz",
		"README":                 "",
		".bashrc":                "",
		".config.yaml":           "yaml",
		"dir.d/file":             "",
		`C:\media\clip.Mov`:      "mov",
		"trailing.":              "",
		"a/b/c.Final.Cut.fcpxml": "fcpxml",
		"":                       "",
	} {
		if got := extension(name); got != want {
			t.Errorf("extension(%q) = %q, want %q", name, got, want)
		}
	}
}
