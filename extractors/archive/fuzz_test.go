package archive

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzWalk feeds any bytes to every reader under every name: no panic,
// no hang, and a listing within its caps.
func FuzzWalk(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, p := range files {
		if filepath.Ext(p) == ".golden" || filepath.Ext(p) == ".md" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, filepath.Base(p))
	}
	f.Add([]byte("PK\x05\x06"+string(make([]byte, 18))), "empty.zip")
	f.Add([]byte("7z\xbc\xaf\x27\x1c"), "short.7z")
	// Substreams before the folders they describe.
	f.Add(append([]byte("7z\xbc\xaf\x27\x1c\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x0e\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
		id7Header, id7MainStreamsInfo, id7SubStreamsInfo, id7End, id7UnpackInfo, id7Folder, 1, 0, 1, 0, 0, id7CodersUnpack, 1, id7End, id7End, id7End), "order.7z")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		l := &listing{ctx: context.Background(), archiveSize: int64(len(data)), maxEntries: 1000}
		r := bytesReader(data)
		_ = walk(l, scope{}, name, r, int64(len(data)))
		d := l.data()
		if l.count > 1000 || len(l.listed) > l.count || len(l.unsafe) > maxUnsafeListed || l.text.Len() > MaxTextTotal {
			t.Fatalf("caps broken: %d entries, %d listed, %d text", l.count, len(l.listed), l.text.Len())
		}
		if d["entry_count"] != l.count {
			t.Fatal("entry_count")
		}
	})
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
