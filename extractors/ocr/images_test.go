package ocr

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// renderPages renders pages of a PDF as document_pages does (pdftoppm
// -jpeg -scale-to 1024 ... DIR/page) into the artifact directory
// document_pages has in a harvest of in (the item's artifact directory,
// in.ArtifactDir, is given to Run), and returns its data.
func renderPages(t *testing.T, in *extractors.Input, pdf string, first, last int) json.RawMessage {
	t.Helper()
	dir := filepath.Join(in.ArtifactDir, "document_pages")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftoppm", "-jpeg", "-scale-to", "1024", "-f", fmt.Sprint(first), "-l", fmt.Sprint(last),
		pdf, filepath.Join(dir, "page")).CombinedOutput()
	if err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	var pages []map[string]any
	for p := first; p <= last; p++ {
		pages = append(pages, map[string]any{"page": p, "path": fmt.Sprintf("page-%d.jpg", p), "width": 724, "height": 1024})
	}
	b, _ := json.Marshal(map[string]any{"page_count": 2, "rendered_count": len(pages), "format": "jpeg", "pages": pages})
	return b
}

// linesOf are the "Printing line number N" lines of the gofpdf AddPage
// example, as pdftotext reads them from testdata/addpage.pdf (page 1
// holds 1 to 24, page 2 25 to 40).
func linesOf(from, to int) []string {
	var out []string
	for n := from; n <= to; n++ {
		out = append(out, fmt.Sprintf("Printing line number %d", n))
	}
	return out
}

func wantWords(t *testing.T, what, text string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: text lacks %q:\n%s", what, w, text)
		}
	}
}

// A page of a real PDF (gofpdf's AddPage example) rendered to a picture by
// pdftoppm reads as the words pdftotext finds in the PDF.
func TestReadsRenderedPDFPage(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	dir := t.TempDir()
	out, err := exec.Command("pdftoppm", "-png", "-gray", "-r", "100", "-f", "1", "-l", "1", "-singlefile",
		"testdata/addpage.pdf", filepath.Join(dir, "page")).CombinedOutput()
	if err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	o := extractortest.Run(t, reg, "tesseract", extractortest.Input(t, filepath.Join(dir, "page.png")))
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	text, _ := o.Data["text"].(string)
	wantWords(t, "page.png", text, append(linesOf(1, 24), "Title"))
	if o.Data["source"] != "image" || o.Data["width"] != 827 || o.Data["height"] != 1170 || o.Data["images"] != 1 ||
		o.Data["words"].(int) < 90 || o.Data["confidence"].(float64) < 85 {
		t.Errorf("data %v", o.Data)
	}
}

// The same text reads alike in every picture format tesseract is given.
func TestReadsEveryFormat(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	png := picture(t, "text.png", "HARBOUR LIGHTS\nRoll 4 of 2024", 640, 200, 40)
	dir := t.TempDir()
	for _, name := range []string{"text.png", "text.jpg", "text.gif", "text.bmp", "text.tiff", "text.webp"} {
		p := filepath.Join(dir, name)
		if name == "text.png" {
			p = png
		} else {
			extractortest.FFmpeg(t, "-i", png, "-frames:v", "1", p)
		}
		o := extractortest.Run(t, reg, "tesseract", extractortest.Input(t, p))
		if o.Err != nil {
			t.Errorf("%s: %v", name, o.Err)
			continue
		}
		if text := o.Data["text"]; text != "HARBOUR LIGHTS\nRoll 4 of 2024" {
			t.Errorf("%s: text %q", name, text)
		}
	}
}

// A picture too small to hold text is no text, without running tesseract.
func TestTinyPicture(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	o := extractortest.Run(t, reg, "tesseract", extractortest.Input(t, "../testdata/video-001.png"))
	if o.Err != nil || o.Data["words"] != 0 {
		t.Errorf("video-001.png: %v %v", o.Data, o.Err)
	}
	p := filepath.Join(t.TempDir(), "dot.png")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "color=c=white:s=2x2:d=1", "-frames:v", "1", p)
	o = extractortest.Run(t, reg, "tesseract", extractortest.Input(t, p))
	if o.Err != nil || o.Data["text"] != "" || o.Data["width"] != 2 {
		t.Errorf("2x2 picture: %v %v", o.Data, o.Err)
	}
}

// A PDF is read from the pages document_pages rendered: the pages without
// a text layer of their own when pdf ran and says which.
func TestReadsDocumentPages(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	in := extractortest.Input(t, "testdata/addpage.pdf")
	in.Prior = map[string]json.RawMessage{"document_pages": renderPages(t, in, "testdata/addpage.pdf", 1, 2)}
	o := extractortest.Run(t, reg, "tesseract", in)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	text, _ := o.Data["text"].(string)
	pages := strings.Split(text, "\f")
	if len(pages) != 2 {
		t.Fatalf("%d pages in the text: %q", len(pages), text)
	}
	wantWords(t, "page 1", pages[0], linesOf(1, 24))
	wantWords(t, "page 2", pages[1], linesOf(25, 40))
	if o.Data["source"] != "document_pages" || o.Data["images"] != 2 || o.Data["images_skipped"] != 0 {
		t.Errorf("data %v", o.Data)
	}
	list, _ := o.Data["pages"].([]any)
	if len(list) != 2 || list[1].(map[string]any)["page"] != 2 {
		t.Errorf("pages %v", o.Data["pages"])
	}

	// pdf found a text layer on page 1 only: page 2 alone is read.
	in.Prior["pdf"] = json.RawMessage(`{"scanned":false,"pages":[{"page":1,"characters":400},{"page":2,"characters":3}]}`)
	o = extractortest.Run(t, reg, "tesseract", in)
	if o.Err != nil || o.Data["images"] != 1 || o.Data["images_skipped"] != 1 {
		t.Fatalf("with pdf's page facts: %v %v", o.Data, o.Err)
	}
	text, _ = o.Data["text"].(string)
	wantWords(t, "page 2 alone", text, linesOf(25, 40))
	if strings.Contains(text, "Printing line number 1\n") {
		t.Errorf("page 1 read although it has a text layer")
	}

	// Not a scan, or no pages rendered: nothing to do, and nothing recorded.
	in.Prior["pdf"] = json.RawMessage(`{"scanned":false}`)
	if o := extractortest.Run(t, reg, "tesseract", in); !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("a PDF with a text layer: %v", o.Err)
	}
	delete(in.Prior, "document_pages")
	if o := extractortest.Run(t, reg, "tesseract", in); !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("a PDF without document_pages: %v", o.Err)
	}
}

// Pages document_pages did not write, or paths leading out of its
// directory, are errors, not reads of other files.
func TestDocumentPagesPaths(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	in := extractortest.Input(t, "testdata/addpage.pdf")
	for _, data := range []string{`{"pages":[{"page":1,"path":"../../etc/passwd"}]}`, `{"pages":[{"page":1,"path":"/etc/passwd"}]}`,
		`{"pages":[{"page":1,"path":"page-1.jpg"}]}`, `{"pages":"many"}`} {
		in.Prior = map[string]json.RawMessage{"document_pages": json.RawMessage(data)}
		o := extractortest.Run(t, reg, "tesseract", in)
		if o.Err == nil || extractors.IsTransient(o.Err) && !strings.Contains(o.Err.Error(), "open image") {
			t.Errorf("%s: %v", data, o.Err)
		}
	}
}
