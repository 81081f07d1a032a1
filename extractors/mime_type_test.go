package extractors

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

func TestMimeTypeGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file  string
		file1 string // what file --mime-type (5.44) says
		want  string // what we report, file1 unless commented
		ext   string
	}{
		{"exif.jpg", "image/jpeg", "image/jpeg", "jpg"},
		{"video-001.png", "image/png", "image/png", "png"},
		{"sample.mov", "video/quicktime", "video/quicktime", "mov"},
		{"sample.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
			"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"},
		{"sample.html", "text/html", "text/html", "html"},
		{"sample.json", "application/json", "application/json", "json"},
		{"sample.zip", "application/zip", "application/zip", "zip"},
		// Same type, two names: mimetype's canonical one is audio/wav and it
		// lists file(1)'s audio/x-wav as an alias.
		{"pluck-pcm16.wav", "audio/x-wav", "audio/wav", "wav"},
	} {
		for _, in := range withAndWithoutContent(t, &Input{Name: "renamed.bin", Path: "testdata/" + tc.file, Size: -1}) {
			res, err := mimeType{}.Extract(context.Background(), in)
			if err != nil {
				t.Fatalf("%s: %v", tc.file, err)
			}
			want := map[string]any{"mime_type": tc.want, "extension": tc.ext}
			if !maps.Equal(res.Data, want) {
				t.Errorf("%s (content given: %v): %v, want %v (file(1): %s)", tc.file, in.Content != nil, res.Data, want, tc.file1)
			}
		}
	}
}

func TestMimeTypeEdgeCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, mime, ext string
	}{
		{"empty", "", "inode/x-empty", ""},                        // file(1): inode/x-empty
		{"latin1.txt", "caf\xe9 cr\xe8me\n", "text/plain", "txt"}, // charset parameter dropped
		{"bytes", "\x00\x01\x02\x03\xff\xfe\x00", "application/octet-stream", ""},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, in := range withAndWithoutContent(t, &Input{Name: tc.name, Path: path}) {
			res, err := mimeType{}.Extract(context.Background(), in)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if want := map[string]any{"mime_type": tc.mime, "extension": tc.ext}; !maps.Equal(res.Data, want) {
				t.Errorf("%s (content given: %v): %v, want %v", tc.name, in.Content != nil, res.Data, want)
			}
		}
	}
	if _, err := (mimeType{}).Extract(context.Background(), &Input{Name: "gone", Path: filepath.Join(dir, "nosuch")}); !IsTransient(err) {
		t.Errorf("missing file: err = %v, want transient", err)
	}
}

// FuzzMimeType: detection on arbitrary bytes never panics and always names a type.
func FuzzMimeType(f *testing.F) {
	for _, name := range []string{"exif.jpg", "sample.docx", "sample.html", "sample.json", "sample.zip"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 8192)])
	}
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := mimeType{}.Extract(context.Background(), &Input{Name: "fuzz", Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := res.Data["mime_type"].(string); s == "" {
			t.Fatalf("no mime type for %q", data)
		}
	})
}
