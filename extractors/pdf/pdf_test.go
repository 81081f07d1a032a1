package pdf

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func registry(t testing.TB, env map[string]string) *extractors.Registry {
	return extractortest.Registry(t, env, "store", "mime_type", "pdf", "document_pages")
}

func needPoppler(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"pdfinfo", "pdftotext", "pdfimages", "pdftoppm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (poppler-utils)", tool)
		}
	}
}

// run runs one extractor of reg on the PDF at path and returns its
// outcome and input.
func run(t testing.TB, reg *extractors.Registry, extractor, path string) (extractors.Outcome, *extractors.Input) {
	t.Helper()
	in := extractortest.Input(t, path)
	in.MIME = "application/pdf"
	return extractortest.Run(t, reg, extractor, in), in
}

func TestSuite(t *testing.T) {
	needPoppler(t)
	t.Parallel()
	files, _ := filepath.Glob("testdata/*.pdf")
	extractortest.Suite(t, registry(t, nil), files)
}

// Expected values are pdfinfo -isodates and pdftotext output (poppler
// 22.12), and `pdftotext -f N -l N FILE - | tr -d '[:space:]' | wc -m` for
// the characters of page N.
func TestPDFGolden(t *testing.T) {
	needPoppler(t)
	t.Parallel()
	reg := registry(t, nil)
	o, _ := run(t, reg, "pdf", "testdata/multicell.pdf")
	d := extractortest.Data(t, o)
	want := map[string]any{
		"title": "20000 Leagues Under the Seas", "author": "Jules Verne", "producer": "FPDF 1.7",
		"created": "2000-01-01T00:00:00Z", "modified": "2000-01-01T00:00:00Z", "page_count": 4.0,
		"page_width": 595.28, "page_height": 841.89, "pdf_version": "1.3", "encrypted": false, "tagged": false,
		"form": "none", "scanned": false, "scanned_pages": 0.0, "pages_examined": 4.0,
	}
	for k, w := range want {
		if !reflect.DeepEqual(d[k], w) {
			t.Errorf("multicell: %s = %#v, want %#v", k, d[k], w)
		}
	}
	var chars []float64
	for _, p := range d["pages"].([]any) {
		chars = append(chars, p.(map[string]any)["characters"].(float64))
	}
	if !reflect.DeepEqual(chars, []float64{3823, 886, 3659, 2488}) {
		t.Errorf("characters per page %v", chars)
	}
	text, _ := d["text"].(string)
	if strings.Count(text, "\f") != 3 || !strings.HasPrefix(text, "20000 Leagues Under the Seas\nChapter 1 : A RUNAWAY REEF") ||
		strings.Count(text, "Scotia") != 3 || !strings.HasSuffix(text, "Page 4") {
		t.Errorf("text %.200q", text)
	}

	o, _ = run(t, reg, "pdf", "testdata/basic.pdf")
	if d := extractortest.Data(t, o); d["text"] != "Hello World!" || d["page_count"] != 1.0 {
		t.Errorf("basic: %v", d)
	}
	// Small logos over little text: not a scan.
	o, _ = run(t, reg, "pdf", "testdata/image.pdf")
	d = extractortest.Data(t, o)
	page := d["pages"].([]any)[0].(map[string]any)
	if d["scanned"] != false || page["images"] != 5.0 || page["image_coverage"].(float64) > 0.1 {
		t.Errorf("image.pdf: %v", d)
	}
}

// A user password: nothing readable, a deterministic error. A damaged
// file: pdfinfo's complaint, deterministic too.
func TestPDFRefusals(t *testing.T) {
	needPoppler(t)
	t.Parallel()
	reg := registry(t, nil)
	for _, name := range []string{"pdf", "document_pages"} {
		o, _ := run(t, reg, name, "testdata/protected.pdf")
		if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), "encrypted with a password") {
			t.Errorf("%s on protected.pdf: %v", name, o.Err)
		}
	}
	b, err := os.ReadFile("testdata/multicell.pdf")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.pdf")
	os.WriteFile(cut, b[:len(b)/2], 0o644)
	for _, name := range []string{"pdf", "document_pages"} {
		o, _ := run(t, reg, name, cut)
		if o.Err != nil && extractors.IsTransient(o.Err) {
			t.Errorf("%s on a truncated pdf: transient %v", name, o.Err)
		}
		if o.Err == nil && name == "pdf" {
			// poppler may rebuild a damaged file; the text is then bounded.
			if d := extractortest.Data(t, o); len(fmt.Sprint(d["text"])) > doctext.MaxText {
				t.Errorf("truncated pdf: text of %d bytes", len(fmt.Sprint(d["text"])))
			}
		}
	}
}

// imagePDF wraps a JPEG into a one-page PDF that draws it over the whole
// page: a scan without OCR text.
func imagePDF(jpeg []byte, w, h int) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream",
			w, h, len(jpeg), jpeg),
		"<< /Length 31 >>\nstream\nq 595 0 0 842 0 0 cm /Im0 Do Q\nendstream",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// A page of multicell.pdf rendered by pdftoppm and wrapped in a PDF as an
// image only: the pdf extractor calls it a scan, and document_pages
// renders it for OCR.
func TestScannedPDF(t *testing.T) {
	needPoppler(t)
	t.Parallel()
	dir := t.TempDir()
	if out, err := exec.Command("pdftoppm", "-jpeg", "-r", "100", "-f", "1", "-l", "1", "-singlefile",
		"testdata/multicell.pdf", filepath.Join(dir, "scan")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	jpeg, err := os.ReadFile(filepath.Join(dir, "scan.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(jpeg))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "scan.pdf")
	os.WriteFile(p, imagePDF(jpeg, cfg.Width, cfg.Height), 0o644)
	reg := registry(t, nil)
	o, _ := run(t, reg, "pdf", p)
	d := extractortest.Data(t, o)
	page := d["pages"].([]any)[0].(map[string]any)
	if d["scanned"] != true || d["scanned_pages"] != 1.0 || page["characters"] != 0.0 || page["image_coverage"] != 1.0 {
		t.Errorf("scan: %v", d)
	}
	o, in := run(t, reg, "document_pages", p)
	d = extractortest.Data(t, o)
	pages := d["pages"].([]any)
	first := pages[0].(map[string]any)
	if len(pages) != 1 || first["path"] != "page-1.jpg" || first["height"] != 1024.0 || first["width"] != 724.0 {
		t.Errorf("pages %v", pages)
	}
	if _, err := os.Stat(filepath.Join(in.ArtifactDir, "document_pages", "page-1.jpg")); err != nil {
		t.Error(err)
	}
}

func TestDocumentPages(t *testing.T) {
	needPoppler(t)
	t.Parallel()
	o, in := run(t, registry(t, map[string]string{"DOCUMENT_PAGES_MAX_PAGES": "3", "DOCUMENT_PAGES_MAX_SIDE": "400"}),
		"document_pages", "testdata/multicell.pdf")
	d := extractortest.Data(t, o)
	if d["page_count"] != 4.0 || d["rendered_count"] != 3.0 || d["format"] != "jpeg" {
		t.Errorf("data %v", d)
	}
	dir := filepath.Join(in.ArtifactDir, "document_pages")
	for i, p := range d["pages"].([]any) {
		pg := p.(map[string]any)
		// An A4 page (595.28 x 841.89 pt) scaled to 400 pixels high.
		if pg["page"] != float64(i+1) || pg["path"] != fmt.Sprintf("page-%d.jpg", i+1) || pg["height"] != 400.0 || pg["width"] != 283.0 {
			t.Errorf("page %v", pg)
		}
		f, err := os.Open(filepath.Join(dir, pg["path"].(string)))
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(f)
		f.Close()
		if err != nil || format != "jpeg" || float64(cfg.Height) != pg["height"] {
			t.Errorf("page file: %v %s %v", err, format, cfg)
		}
	}
	kinds := map[string]int{}
	for _, a := range o.Artifacts {
		kinds[a.Kind]++
	}
	if kinds["page"] != 3 || kinds["thumbnail"] != 1 {
		t.Errorf("artifacts %v", o.Artifacts)
	}
	if th := d["thumbnail"].(map[string]any); th["height"] != 256.0 {
		t.Errorf("thumbnail %v", th)
	}
	bad := registry(t, map[string]string{"DOCUMENT_PAGES_MAX_PAGES": "0"})
	if o, _ := run(t, bad, "document_pages", "testdata/basic.pdf"); o.Err == nil || !strings.Contains(o.Err.Error(), "DOCUMENT_PAGES_MAX_PAGES") {
		t.Errorf("bad setting: %v", o.Err)
	}
}

// Two hundred copies of a four-page document (800 pages, 2.6 MB of text):
// pdftotext is stopped at its output cap, the text is cut at 256 KiB, and
// only pages read whole are examined.
func TestPDFOversized(t *testing.T) {
	needPoppler(t)
	if _, err := exec.LookPath("pdfunite"); err != nil {
		t.Skip("pdfunite not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	args := make([]string, 0, 201)
	for i := 0; i < 200; i++ {
		args = append(args, "testdata/multicell.pdf")
	}
	big := filepath.Join(dir, "big.pdf")
	if out, err := exec.Command("pdfunite", append(args, big)...).CombinedOutput(); err != nil {
		t.Fatalf("pdfunite: %v %s", err, out)
	}
	start := time.Now()
	o, _ := run(t, registry(t, nil), "pdf", big)
	d := extractortest.Data(t, o)
	text, _ := d["text"].(string)
	if d["page_count"] != 800.0 || d["text_truncated"] != true || len(text) > doctext.MaxText || len(text) < doctext.MaxText-8192 {
		t.Errorf("big: %v pages, truncated %v, %d bytes of text", d["page_count"], d["text_truncated"], len(text))
	}
	if d["pages_examined"] != 50.0 {
		t.Errorf("examined %v", d["pages_examined"])
	}
	t.Logf("800 pages in %s", time.Since(start))
}
