package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// zeroBlock is a byte-aligned deflate block that inflates to 1 MiB of
// zeros whatever came before it: repeated n times and closed, it is a
// real deflate stream of n MiB made without compressing n MiB.
var zeroBlock = sync.OnceValues(func() ([]byte, []byte) {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	w.Write(make([]byte, 1<<20))
	w.Flush()
	block := bytes.Clone(b.Bytes())
	b.Reset()
	w.Close()
	return block, bytes.Clone(b.Bytes())
})

func zeroDeflate(mib int) []byte {
	block, end := zeroBlock()
	return append(bytes.Repeat(block, mib), end...)
}

// The stream above really inflates to zeros.
func TestZeroDeflateInflates(t *testing.T) {
	t.Parallel()
	n, err := io.Copy(io.Discard, flate.NewReader(bytes.NewReader(zeroDeflate(3))))
	if err != nil || n != 3<<20 {
		t.Fatalf("%d %v", n, err)
	}
}

type zipEntry struct {
	name   string
	body   []byte // stored when raw is nil
	raw    []byte // deflated data written as is
	size   uint64 // declared size of raw
	mode   os.FileMode
	method uint16
}

func makeZip(t *testing.T, es ...zipEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store, Modified: time.Date(2024, 1, 2, 3, 4, 6, 0, time.UTC)}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		if e.raw != nil {
			h.Method = zip.Deflate
			h.CompressedSize64 = uint64(len(e.raw))
			h.UncompressedSize64 = e.size
			w, err := zw.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(e.raw)
			continue
		}
		if e.method != 0 {
			h.Method = e.method
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// refused lists data and wants the deterministic error of a hostile
// archive, whose text contains want.
func refused(t *testing.T, name string, data []byte, want string) {
	t.Helper()
	d, err := list(t, name, data)
	switch {
	case err == nil:
		t.Errorf("%s: listed, want an error containing %q: %v", name, want, d)
	case extractors.IsTransient(err) || errors.Is(err, extractors.ErrUnsupported):
		t.Errorf("%s: %v, want a deterministic error", name, err)
	case !strings.Contains(err.Error(), want):
		t.Errorf("%s: %v, want %q", name, err, want)
	}
}

// A 42.zip-like bomb: four zips of four 300 MiB entries of zeros each
// (about 1.5 MB each, a ratio of 800), inside one zip. It is refused from
// the first inner directory read, and nothing is inflated.
func TestZipBombIsRefusedNotInflated(t *testing.T) {
	t.Parallel()
	zeros := zeroDeflate(300)
	var inner []zipEntry
	for i := range 4 {
		var es []zipEntry
		for j := range 4 {
			es = append(es, zipEntry{name: fmt.Sprintf("%d.txt", j), raw: zeros, size: 300 << 20})
		}
		inner = append(inner, zipEntry{name: fmt.Sprintf("lib%d.zip", i), body: makeZip(t, es...)})
	}
	bomb := makeZip(t, inner...)
	start := time.Now()
	refused(t, "42.zip", bomb, `decompression bomb refused: entry "0.txt" declares 314572800 bytes`)
	// The same entries at the top level.
	refused(t, "lib0.zip", inner[0].body, "decompression bomb refused")
	// Inflating 4.8 GB would take tens of seconds; listing takes nothing.
	t.Logf("refused in %s", time.Since(start))
}

// A zip whose directory points many entries at one deflate stream (the
// overlapping-entries bomb) is refused.
func TestOverlappingEntriesAreRefused(t *testing.T) {
	t.Parallel()
	z := makeZip(t, zipEntry{name: "a.bin", raw: zeroDeflate(2), size: 2 << 20})
	// Copy the one central directory record ten times, all pointing at
	// the same local header.
	eocd := bytes.LastIndex(z, []byte("PK\x05\x06"))
	cdOff := int(binary.LittleEndian.Uint32(z[eocd+16:]))
	rec := z[cdOff:eocd]
	var out bytes.Buffer
	out.Write(z[:cdOff])
	for range 10 {
		out.Write(rec)
	}
	end := bytes.Clone(z[eocd:])
	binary.LittleEndian.PutUint16(end[8:], 10)
	binary.LittleEndian.PutUint16(end[10:], 10)
	binary.LittleEndian.PutUint32(end[12:], uint32(10*len(rec)))
	out.Write(end)
	refused(t, "overlap.zip", out.Bytes(), "decompression bomb refused: entries share compressed data")
}

// gzipOfTar frames a tar header for an entry of mib MiB of zeros and the
// zeros themselves (raw deflate blocks) as a gzip stream: a tar.gz bomb
// made without compressing the zeros.
func gzipOfTar(mib int) []byte {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "first.txt", Mode: 0o644, Size: 5, Typeflag: tar.TypeReg})
	tw.Write([]byte("first"))
	tw.WriteHeader(&tar.Header{Name: "zeros.bin", Mode: 0o644, Size: int64(mib) << 20, Typeflag: tar.TypeReg})
	hdr := bytes.Clone(tb.Bytes())
	// gzip framing around the raw zero stream: the tar header is put in a
	// stored block first.
	var g bytes.Buffer
	g.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	fw, _ := flate.NewWriter(&g, flate.NoCompression)
	fw.Write(hdr)
	fw.Flush()
	block, end := zeroBlock()
	for range mib + 1 {
		g.Write(block)
	}
	g.Write(end)
	g.Write(make([]byte, 8)) // CRC and size: never reached
	return g.Bytes()
}

// A gzip of a tar holding 300 MiB of zeros is refused at the ratio cap:
// the guard counts what comes out against what went in, so the bomb is
// found after 256 MiB of zeros, with bounded memory.
func TestTarGzBombIsRefused(t *testing.T) {
	t.Parallel()
	refused(t, "bomb.tar.gz", gzipOfTar(300), "decompression bomb refused")
	// One compressed file, no tar: the same.
	block, end := zeroBlock()
	g := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	g = append(append(g, bytes.Repeat(block, 300)...), end...)
	refused(t, "zeros.bin.gz", append(g, make([]byte, 8)...), "decompression bomb refused")
}

// Zip slip: names with .. elements, absolute names and NUL bytes are
// refused, each in an archive of its own among harmless entries, in zip
// and tar alike.
func TestZipSlipIsRefused(t *testing.T) {
	t.Parallel()
	for name, reason := range map[string]string{
		"../../etc/passwd.txt": "parent directory",
		"/abs/secret.txt":      "absolute path",
		`C:\Windows\evil.txt`:  "absolute path",
		`ok/..\..\x.txt`:       "parent directory",
		"nul\x00.txt":          "nul byte",
	} {
		z := makeZip(t, zipEntry{name: "fine.txt", body: []byte("fine words")}, zipEntry{name: name, body: []byte("root:x:0:0")})
		refused(t, "slip.zip", z, "unsafe entry refused (zip slip): ")
		refused(t, "slip.zip", z, reason)
		if strings.ContainsRune(name, 0) {
			continue // a tar name ends at its first NUL
		}
		var tb bytes.Buffer
		tw := tar.NewWriter(&tb)
		tw.WriteHeader(&tar.Header{Name: "fine.txt", Typeflag: tar.TypeReg, Size: 4, Mode: 0o644})
		tw.Write([]byte("fine"))
		tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Size: 2, Mode: 0o644})
		tw.Write([]byte("up"))
		tw.Close()
		refused(t, "slip.tar", tb.Bytes(), reason)
	}
	// A slip inside a nested archive makes the outer one hostile.
	inner := makeZip(t, zipEntry{name: "../up.txt", body: []byte("up")})
	refused(t, "outer.zip", makeZip(t, zipEntry{name: "inner.zip", body: inner}), `"../up.txt": parent directory`)
}

// Links, devices and FIFOs (a system image's tarball has them) are listed,
// flagged and never read.
func TestLinksAndSpecialFilesAreFlaggedNotRead(t *testing.T) {
	t.Parallel()
	z := makeZip(t,
		zipEntry{name: "link.txt", body: []byte("/etc/shadow"), mode: os.ModeSymlink | 0o777},
		zipEntry{name: "fine.txt", body: []byte("fine words")},
	)
	d := mustList(t, "links.zip", z)
	if d["unsafe_entries"] != 1.0 || d["text"] != "fine words" || d["links"] != 1.0 {
		t.Fatalf("data %v", d)
	}
	if u := d["unsafe"].([]any)[0].(map[string]any); u["name"] != "link.txt" || u["reason"] != "link" {
		t.Errorf("unsafe %v", u)
	}

	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, h := range []*tar.Header{
		{Name: "etc-link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd", Mode: 0o777},
		{Name: "hard", Typeflag: tar.TypeLink, Linkname: "../../outside", Mode: 0o644},
		{Name: "dev/null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3, Mode: 0o666},
		{Name: "pipe", Typeflag: tar.TypeFifo, Mode: 0o644},
	} {
		tw.WriteHeader(h)
	}
	tw.Close()
	d = mustList(t, "links.tar", tb.Bytes())
	if d["unsafe_entries"] != 4.0 || d["text"] != nil || d["links"] != 2.0 {
		t.Fatalf("tar data %v", d)
	}
	es := entries(d)
	if es[0]["link"] != "/etc/passwd" || es[0]["type"] != "symlink" || es[2]["type"] != "device" || es[3]["unsafe_reason"] != "special file" {
		t.Errorf("tar entries %v", es)
	}
}

// 100,000 entries: all counted, 10,000 listed.
func TestManyEntriesAreCountedAndTheListCapped(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := range 100000 {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f%06d", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	zw.Close()
	d := mustList(t, "many.zip", b.Bytes())
	if d["entry_count"] != 100000.0 || d["listed"] != float64(MaxListed) || d["truncated"] != true || d["stopped_by"] != nil {
		t.Fatalf("data %v", d["entry_count"])
	}
	if len(entries(d)) != MaxListed {
		t.Errorf("%d listed", len(entries(d)))
	}
}

// Past the walk cap the walk stops, keeping the listing.
func TestEntryCapStopsTheWalk(t *testing.T) {
	t.Parallel()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for i := range 50 {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprint(i), Typeflag: tar.TypeReg, Mode: 0o644})
	}
	tw.Close()
	l := &listing{ctx: context.Background(), archiveSize: int64(tb.Len()), maxEntries: 20}
	if err := walk(l, scope{}, "x.tar", bytes.NewReader(tb.Bytes()), int64(tb.Len())); err != nil {
		t.Fatal(err)
	}
	d := l.data()
	if d["stopped_by"] != "entries" || d["entry_count"] != 20 || d["truncated"] != true {
		t.Fatalf("data %v", d)
	}
}

// At the time limit the walk stops and keeps what it listed.
func TestTimeLimitKeepsTheListing(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/docs.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	l := &listing{ctx: context.Background(), archiveSize: int64(len(b)), maxEntries: MaxEntries,
		stopAt: time.Now().Add(-time.Second)}
	if err := walk(l, scope{}, "docs.tar.gz", bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatal(err)
	}
	if d := l.data(); d["stopped_by"] != "time_limit" {
		t.Fatalf("data %v", d)
	}
	// A cancelled harvest is an error, transient for the runner.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = extractor{}.Extract(ctx, &extractors.Input{Name: "docs.tar.gz", Content: b})
	if !extractors.IsTransient(err) {
		t.Errorf("cancelled: %v", err)
	}
}

// Nested archives are opened one level deep only.
func TestNestingIsOneLevelDeep(t *testing.T) {
	t.Parallel()
	deepest := makeZip(t, zipEntry{name: "deep.txt", body: []byte("deep words")})
	middle := makeZip(t, zipEntry{name: "deepest.zip", body: deepest}, zipEntry{name: "middle.txt", body: []byte("middle words")})
	outer := makeZip(t, zipEntry{name: "middle.zip", body: middle}, zipEntry{name: "outer.txt", body: []byte("outer words")})
	d := mustList(t, "outer.zip", outer)
	if d["nested_archives"] != 1.0 || d["entry_count"] != 4.0 {
		t.Fatalf("data %v", d)
	}
	text := d["text"].(string)
	if !strings.Contains(text, "middle words") || !strings.Contains(text, "outer words") || strings.Contains(text, "deep words") {
		t.Errorf("text %q", text)
	}
	for _, e := range entries(d) {
		if e["name"] == "deepest.zip" && e["archive"] != "middle.zip" {
			t.Errorf("entry %v", e)
		}
	}
}

// Damaged archives: a listing so far, or an error when nothing was read.
func TestDamagedArchives(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/docs.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	var tb bytes.Buffer
	zr, _ := gzip.NewReader(bytes.NewReader(b))
	io.Copy(&tb, zr)
	// The tar cut in the middle of its third entry's data.
	cut := tb.Bytes()[:512*4+10]
	d := mustList(t, "cut.tar", cut)
	if d["stopped_by"] != "damaged" || d["entry_count"].(float64) < 1 || d["damage"] == nil {
		t.Errorf("cut tar: %v", d)
	}
	if _, err := list(t, "cut.tar.gz", b[:20]); err == nil || extractors.IsTransient(err) || errors.Is(err, extractors.ErrUnsupported) {
		t.Errorf("cut gzip header: %v", err)
	}
	z := makeZip(t, zipEntry{name: "a.txt", body: []byte("a")}, zipEntry{name: "b.txt", body: []byte("b")})
	eocd := bytes.LastIndex(z, []byte("PK\x05\x06"))
	bad := bytes.Clone(z)
	cdOff := int(binary.LittleEndian.Uint32(bad[eocd+16:]))
	copy(bad[cdOff:], "XXXX") // the first directory record destroyed
	if _, err := list(t, "bad.zip", bad); err == nil {
		t.Error("zip with a destroyed directory listed")
	}
	if _, err := list(t, "garbage.zip", []byte("PK\x03\x04 not really")); err == nil {
		t.Error("garbage zip listed")
	}
	if _, err := list(t, "text.txt", []byte("just text")); !errors.Is(err, extractors.ErrUnsupported) {
		t.Errorf("text: %v", err)
	}
}

// 7z headers declaring billions of files, or a huge compressed header,
// are refused before anything is allocated for them.
func TestHostile7zHeaders(t *testing.T) {
	t.Parallel()
	sevenZ := func(header []byte) []byte {
		b := make([]byte, sevenZSigLen)
		copy(b, sevenZMagic)
		b[6], b[7] = 0, 4
		binary.LittleEndian.PutUint64(b[12:], 0)
		binary.LittleEndian.PutUint64(b[20:], uint64(len(header)))
		return append(b, header...)
	}
	for name, header := range map[string][]byte{
		// kHeader kFilesInfo NumFiles=0xFFFFFFFF (NUMBER 0xF0 + 4 bytes)
		"files": {id7Header, id7FilesInfo, 0xf0, 0xff, 0xff, 0xff, 0xff, 0, 0},
		// kHeader kMainStreamsInfo kPackInfo pos=0 n=2^56
		"pack streams": {id7Header, id7MainStreamsInfo, id7PackInfo, 0, 0xfe, 0, 0, 0, 0, 0, 0, 1, 0},
		// kEncodedHeader whose folder unpacks to 2^32 bytes
		"encoded": {id7EncodedHeader, id7PackInfo, 0, 1, id7Size, 10, id7End, id7UnpackInfo, id7Folder, 1, 0,
			1, 0x23, 3, 1, 1, 5, 0x5d, 0, 0, 1, 0, id7CodersUnpack, 0xf8, 0, 0, 0, 0, 1, id7End, id7End},
	} {
		_, err := list(t, name+".7z", sevenZ(header))
		if err == nil || !strings.Contains(err.Error(), "declares") && !strings.Contains(err.Error(), "more than") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The header size itself is checked against the file.
	b := sevenZ(nil)
	binary.LittleEndian.PutUint64(b[20:], 1<<40)
	if _, err := list(t, "size.7z", b); err == nil {
		t.Error("header outside the file listed")
	}
}

// An xz declaring a 1.5 GiB dictionary is refused before decoding.
func TestXZDictionaryIsBounded(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/hello.xz")
	if err != nil {
		t.Fatal(err)
	}
	// The block header follows the 12-byte stream header: size, flags,
	// filter id 0x21, properties size 1, dictionary byte.
	if b[14] != 0x21 || b[15] != 1 {
		t.Fatalf("block header %x", b[12:20])
	}
	bad := bytes.Clone(b)
	bad[16] = 37
	_, err = list(t, "big-dict.xz", bad)
	if err == nil || !strings.Contains(err.Error(), "dictionary") {
		t.Fatalf("err %v", err)
	}
}
