package office

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// expectRefused runs officex on b and wants a deterministic error
// containing want, with bounded allocation.
func expectRefused(t *testing.T, name string, b []byte, want string, maxAlloc uint64) {
	t.Helper()
	p := writeFile(t, name, b)
	var o extractors.Outcome
	n := extractortest.Allocated(func() { o = run(t, p, false) })
	if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), want) {
		t.Errorf("%s: err = %v, want one containing %q", name, o.Err, want)
	}
	if n > maxAlloc {
		t.Errorf("%s: %d bytes allocated, at most %d expected", name, n, maxAlloc)
	}
}

// A docx whose document part inflates 1000:1 (64 MiB of zeros) is refused
// from its directory entry, before a byte is inflated.
func TestZipBombRatio(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("[Content_Types].xml")
	f.Write([]byte(contentTypes))
	f, _ = w.Create("word/document.xml")
	zeros := make([]byte, 1<<20)
	for i := 0; i < 60; i++ {
		f.Write(zeros)
	}
	w.Close()
	expectRefused(t, "bomb.docx", buf.Bytes(), "zip bomb", 8<<20)
}

// A part that declares 1 KiB but inflates to 64 MiB: reading stops at the
// declared size (archive/zip and the extractor's own count agree).
func TestZipBombLyingSize(t *testing.T) {
	payload := []byte(wordDoc(`<w:p><w:r><w:t>` + strings.Repeat("A", 64<<20) + `</w:t></w:r></w:p>`))
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestSpeed)
	fw.Write(payload)
	fw.Close()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("[Content_Types].xml")
	f.Write([]byte(contentTypes))
	raw, err := w.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(payload), CompressedSize64: uint64(deflated.Len()), UncompressedSize64: 1024})
	if err != nil {
		t.Fatal(err)
	}
	raw.Write(deflated.Bytes())
	w.Close()
	expectRefused(t, "liar.docx", buf.Bytes(), "document.xml", 8<<20)
}

// 100,000 entries: refused from the end-of-directory record, before
// archive/zip reads the directory.
func TestZipManyEntries(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("[Content_Types].xml")
	f.Write([]byte(contentTypes))
	for i := 0; i < 100000; i++ {
		if _, err := w.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("x/%d", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	expectRefused(t, "many.docx", buf.Bytes(), "100001 entries", 2<<20)
}

// A document part with a DTD is refused: a billion laughs and an external
// entity naming /etc/passwd never get to be expanded or fetched.
func TestOfficeEntities(t *testing.T) {
	var lol strings.Builder
	lol.WriteString(`<!DOCTYPE w:document [<!ENTITY lol "lol">`)
	for i := 1; i <= 9; i++ {
		prev := "lol"
		if i > 1 {
			prev = fmt.Sprintf("lol%d", i-1)
		}
		fmt.Fprintf(&lol, `<!ENTITY lol%d "%s">`, i, strings.Repeat("&"+prev+";", 10))
	}
	lol.WriteString(`]>`)
	for name, doctype := range map[string]string{
		"laughs.docx": lol.String() + wordDoc(`<w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>`),
		"xxe.docx":    `<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` + wordDoc(`<w:p><w:r><w:t>&xxe;</w:t></w:r></w:p>`),
	} {
		b := zipOf(t, map[string]string{"[Content_Types].xml": contentTypes, "word/document.xml": doctype})
		expectRefused(t, name, b, "part word/document.xml: document type declaration refused", 8<<20)
	}
	// Declared and never used, an external entity is refused all the same;
	// an undefined entity without a DTD is a syntax error.
	b := zipOf(t, map[string]string{"[Content_Types].xml": contentTypes,
		"word/document.xml": `<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "http://127.0.0.1:1/x">]>` + wordDoc(`<w:p><w:r><w:t>words</w:t></w:r></w:p>`)})
	expectRefused(t, "unused.docx", b, "document type declaration refused", 8<<20)
	b = zipOf(t, map[string]string{"[Content_Types].xml": contentTypes, "word/document.xml": wordDoc(`<w:p><w:r><w:t>&xxe;</w:t></w:r></w:p>`)})
	expectRefused(t, "undefined.docx", b, "entity", 8<<20)
}

// A part declaring more than the 64 MiB the extractor parses, at a ratio
// that is no bomb's, is refused from its directory entry as too large.
func TestPartOverTheParserCap(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("[Content_Types].xml")
	f.Write([]byte(contentTypes))
	raw, err := w.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate,
		CompressedSize64: 1 << 20, UncompressedSize64: 65 << 20})
	if err != nil {
		t.Fatal(err)
	}
	raw.Write(make([]byte, 1<<20))
	w.Close()
	expectRefused(t, "big.docx", buf.Bytes(), "document too large: part word/document.xml of 68157440 bytes, over the 64 MiB", 8<<20)
}

func TestNotOffice(t *testing.T) {
	t.Parallel()
	docx, err := os.ReadFile("testdata/sample-docx.docx")
	if err != nil {
		t.Fatal(err)
	}
	// Each is refused, and says why: a file cut short is not called "not
	// a zip".
	for name, want := range map[string]struct {
		b   []byte
		err string
	}{
		"empty.docx":     {nil, "not a zip archive"},
		"text.docx":      {[]byte("just some text, not a zip"), "not a zip archive"},
		"truncated.docx": {docx[:len(docx)/2], "truncated or damaged"},
		"plain.zip":      {zipOf(t, map[string]string{"readme.txt": "hello"}), "neither Office Open XML nor OpenDocument"},
		"nomain.docx":    {zipOf(t, map[string]string{"[Content_Types].xml": contentTypes}), "no Word, Excel or PowerPoint part"},
	} {
		o := run(t, writeFile(t, name, want.b), false)
		if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), want.err) {
			t.Errorf("%s: err = %v, want a deterministic refusal saying %q", name, o.Err, want.err)
		}
	}
}
