package doctext

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

func TestBuilderCapsOnRuneBoundary(t *testing.T) {
	b := NewBuilder(5)
	b.WriteString("ab")
	b.WriteString("çé") // 4 bytes: only ç fits
	if b.String() != "abç" || !b.Truncated() || !b.Full() && b.Len() != 4 {
		t.Errorf("%q truncated %v", b.String(), b.Truncated())
	}
	data := map[string]any{}
	b.Put(data)
	if data["text"] != "abç" || data["text_truncated"] != true {
		t.Errorf("put %v", data)
	}
}

// A rune split between two writes (a read boundary) is joined again.
func TestBuilderJoinsSplitRunes(t *testing.T) {
	b := NewBuilder(0)
	euro := []byte("€") // e2 82 ac
	b.Write([]byte{'a', euro[0]})
	b.Write([]byte{euro[1]})
	b.Write([]byte{euro[2], 'b'})
	if b.String() != "a€b" || b.Truncated() {
		t.Errorf("%q", b.String())
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Detected
	}{
		{"\xef\xbb\xbfhi", Detected{UTF8, true}},
		{"\xff\xfeh\x00i\x00", Detected{UTF16LE, true}},
		{"\xfe\xff\x00h\x00i", Detected{UTF16BE, true}},
		{"h\x00e\x00l\x00l\x00o\x00", Detected{UTF16LE, false}},
		{"\x00h\x00e\x00l\x00l\x00o", Detected{UTF16BE, false}},
		{"caf\xc3\xa9", Detected{UTF8, false}},
		{"caf\xc3", Detected{UTF8, false}}, // cut inside a rune
		{"caf\xe9", Detected{Latin1, false}},
		{"\x93quoted\x94", Detected{Windows1252, false}},
	} {
		if got := Detect([]byte(tc.in), !strings.HasSuffix(tc.in, "\xc3")); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if s, _ := DecodeBytes([]byte("\x93quoted\x94 caf\xe9")); s != "“quoted” café" {
		t.Errorf("windows-1252: %q", s)
	}
	if !LooksBinary("\x00\x01\x02abc") || LooksBinary("plain text\twith tabs\n") || !LooksBinary(strings.Repeat("\x01", 10)) {
		t.Error("LooksBinary")
	}
	if DecodeCharset([]byte("\xe9t\xe9"), "iso-8859-1") != "été" || DecodeCharset([]byte("été"), "") != "été" {
		t.Error("DecodeCharset")
	}
}

func TestOpenAt(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(p, []byte("PK-bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []*extractors.Input{
		{Name: "a.zip", Path: p, Size: 999},                                // the storage's size is not trusted
		{Name: "a.zip", Path: "/nonexistent", Content: []byte("PK-bytes")}, // Content wins over Path
	} {
		a, err := OpenAt(in)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 5)
		if n, err := a.ReadAt(buf, 3); err != nil || n != 5 || string(buf) != "bytes" || a.Size != 8 {
			t.Errorf("%+v: %d %v %q size %d", in, n, err, buf, a.Size)
		}
		if (a.Info != nil) != (in.Content == nil) || a.Info != nil && !a.Info.Mode().IsRegular() {
			t.Errorf("%+v: file info %v", in, a.Info)
		}
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := OpenAt(&extractors.Input{Name: "gone.zip", Path: "/nonexistent"}); !extractors.IsTransient(err) {
		t.Errorf("missing file: %v", err)
	}
}

func TestCounter(t *testing.T) {
	t.Parallel()
	c := &Counter{R: strings.NewReader("twelve bytes")}
	if b, err := io.ReadAll(c); err != nil || len(b) != 12 || c.N != 12 {
		t.Errorf("read %q %v, counted %d", b, err, c.N)
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"héllo", 10, "héllo"}, {"héllo", 5, "héll"}, {"héllo", 2, "h"}, {"héllo", 3, "hé"},
		{"héllo", 0, ""}, {"héllo", -1, ""}, {"", 4, ""}, {"日本", 4, "日"},
	} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
