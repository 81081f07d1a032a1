package archive

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// list runs the extractor on an archive held in memory.
func list(t *testing.T, name string, data []byte) (map[string]any, error) {
	t.Helper()
	res, err := extractor{}.Extract(context.Background(), &extractors.Input{Name: name, Path: "/nonexistent", Size: int64(len(data)), Content: data})
	if err != nil {
		return nil, err
	}
	// Through JSON, as the worker stores it.
	b, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d, nil
}

func mustList(t *testing.T, name string, data []byte) map[string]any {
	t.Helper()
	d, err := list(t, name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

func entries(d map[string]any) []map[string]any {
	var out []map[string]any
	list, _ := d["entries"].([]any)
	for _, e := range list {
		out = append(out, e.(map[string]any))
	}
	return out
}

func TestSamplesGolden(t *testing.T) {
	t.Parallel()
	for _, ext := range []string{".zip", ".tar", ".7z", ".xz", ".gz"} {
		extractortest.Golden(t, "testdata", ext, func(t *testing.T, name string, in []byte) (any, error) {
			return list(t, name, in)
		})
	}
}

// What the bare tools list (unzip -lv, tar tvf, 7zz l, xz -lvv; see
// testdata/README.md): name, size, and for zip the stored size.
func TestSamplesMatchTheBareTools(t *testing.T) {
	t.Parallel()
	type want struct {
		name             string
		size, compressed float64 // compressed -1: not listed
		modified         string
	}
	for file, ws := range map[string][]want{
		"go-source.zip":     {{"asd.go", 187, 142, "2023-01-20T05:19:44Z"}},
		"v7.tar":            {{"a.json", 399, -1, "2018-12-20T11:01:12Z"}},
		"plain-header.7z":   {{"asd.go", 187, -1, "2018-05-09T12:06:56Z"}},
		"hello.xz":          {{"hello", 15, 72, ""}},
		"encoded-header.7z": {{"docs", 0, -1, "2024-05-06T07:08:09Z"}, {"docs/notes.md", 26, -1, "2024-05-06T07:08:09Z"}, {"docs/readme.txt", 35, -1, "2024-05-06T07:08:09Z"}, {"docs/table.csv", 22, -1, "2024-05-06T07:08:09Z"}},
		"docs.zip":          {{"docs/", 0, 0, ""}, {"docs/readme.txt", 35, 35, ""}, {"docs/table.csv", 22, 22, ""}, {"docs/notes.md", 26, 26, ""}},
		"docs.tar.gz":       {{"docs/", 0, -1, "2024-05-06T07:08:09Z"}, {"docs/readme.txt", 35, -1, "2024-05-06T07:08:09Z"}, {"docs/table.csv", 22, -1, "2024-05-06T07:08:09Z"}, {"docs/notes.md", 26, -1, "2024-05-06T07:08:09Z"}},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		d := mustList(t, file, b)
		es := entries(d)
		if len(es) != len(ws) || d["entry_count"] != float64(len(ws)) || d["truncated"] != false {
			t.Errorf("%s: %v", file, d)
			continue
		}
		for i, w := range ws {
			e := es[i]
			if e["name"] != w.name || e["size"] != w.size {
				t.Errorf("%s: entry %d %v, want %+v", file, i, e, w)
			}
			if c, ok := e["compressed_size"]; (w.compressed < 0) == ok || (ok && c != w.compressed) {
				t.Errorf("%s: %s compressed %v, want %v", file, w.name, c, w.compressed)
			}
			if w.modified != "" && e["modified"] != w.modified {
				t.Errorf("%s: %s modified %v, want %v", file, w.name, e["modified"], w.modified)
			}
		}
	}
}

// The text of the small documents inside is read, and found as the words
// the files hold.
func TestInnerTextIsExtracted(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"docs.zip", "docs.tar.gz"} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		d := mustList(t, file, b)
		text, _ := d["text"].(string)
		for _, w := range []string{"The archive keeps a quince recipe.", "name,fruit\nann,quince", "# Notes\nmedlar and quince"} {
			if !strings.Contains(text, w) {
				t.Errorf("%s: text %q lacks %q", file, text, w)
			}
		}
		if d["text_files"] != 3.0 {
			t.Errorf("%s: text_files %v", file, d["text_files"])
		}
	}
}

func TestSuite(t *testing.T) {
	t.Parallel()
	reg := extractortest.Registry(t, nil, Name)
	archives := extractortest.Samples(t, "testdata")
	outs := extractortest.Suite(t, reg, archives)
	for _, s := range archives {
		if o := outs[Name][filepath.Base(s)]; o.Err != nil {
			t.Errorf("%s: %v", s, o.Err)
		}
	}
}

// The text files inside an archive are read in their own encoding, as
// text files outside one are: a Turkish note saved in Windows-1254, a
// Russian one in Windows-1251 and one saved by Notepad as UTF-16 with a
// byte order mark. Binary content stays out.
func TestInnerTextIsReadInItsEncoding(t *testing.T) {
	t.Parallel()
	encode := func(enc *charmap.Charmap, s string) []byte {
		b, err := enc.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	utf16le := []byte{0xFF, 0xFE}
	for _, r := range "Notepad saved these quince notes." {
		utf16le = append(utf16le, byte(r), byte(r>>8))
	}
	files := []struct {
		name string
		data []byte
	}{
		{"turkce.txt", encode(charmap.Windows1254, "Savaşçısı yağmurda ağladı; çiçekler güzeldi.")},
		{"russkij.txt", encode(charmap.Windows1251, "Съешь же ещё этих мягких французских булок.")},
		{"notepad.txt", utf16le},
		{"blob.txt", append([]byte("looks like text"), 0, 1, 2, 0, 0xff)},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	d := mustList(t, "notes.zip", buf.Bytes())
	text, _ := d["text"].(string)
	for _, want := range []string{"Savaşçısı yağmurda ağladı", "Съешь же ещё этих мягких", "Notepad saved these quince notes."} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
	if strings.Contains(text, "looks like text") {
		t.Errorf("binary content read as text: %q", text)
	}
	if d["text_files"] != 3.0 {
		t.Errorf("text_files %v, want 3", d["text_files"])
	}
}
