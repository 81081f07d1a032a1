package ocr

import (
	"os"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// tsvSummary is what the golden files pin of a parse: the pages, and the
// text and figures kept at the picture threshold and at the frame one.
type tsvSummary struct {
	Pages []struct {
		Number, Width, Height, Lines, Words int
	}
	Truncated       bool
	Text            string
	Words           int
	Confidence      float64
	FrameText       string
	FrameHasText    bool
	FrameConfidence float64
}

// TestParseTSVGolden parses tesseract 5.3's TSV of real pictures, recorded
// with `tesseract IMG - -l eng --psm 3 -c tessedit_page_number=0 tsv`
// (testdata/tsv/README.md), and hand-made broken ones.
func TestParseTSVGolden(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/tsv", ".tsv", func(t *testing.T, name string, in []byte) (any, error) {
		rec, err := ParseTSV(in)
		if err != nil {
			return nil, err
		}
		var s tsvSummary
		for _, p := range rec.Pages {
			words := 0
			for _, l := range p.Lines {
				words += len(l.Words)
			}
			s.Pages = append(s.Pages, struct{ Number, Width, Height, Lines, Words int }{p.Number, p.Width, p.Height, len(p.Lines), words})
		}
		r := summarize(rec, textConfidence)
		f := summarize(rec, frameConfidence)
		s.Truncated, s.Text, s.Words, s.Confidence = rec.Truncated, r.Text, r.Words, r.Confidence
		s.FrameText, s.FrameHasText, s.FrameConfidence = f.Text, f.hasText(), f.Confidence
		return s, nil
	})
}

// The words tesseract prints in its plain text output (`tesseract IMG -
// -l eng`, run by hand on the same pictures) are the words of the TSV.
func TestParseTSVMatchesPlainOutput(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"slate.tsv": "TITLE: HARBOUR",
		"card.tsv":  "Directed by\nANNA BERG\nProduced by\nJON SMITH\nMusic by\nLENA HOLM",
		// The first lines of the gofpdf page (pdftotext reads "Title" and
		// "Printing line number 1" ... from the PDF itself).
		"addpage.tsv": "Printing line number 1\nPrinting line number 2\nPrinting line number 3",
	} {
		b, err := os.ReadFile("testdata/tsv/" + name)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := ParseTSV(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := summarize(rec, textConfidence).Text; !strings.Contains(got, want) {
			t.Errorf("%s: text %q lacks %q", name, got, want)
		}
	}
}

func TestParseTSVBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(tsvHeader + "\n1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n")
	for i := 0; i < maxTSVWords+10; i++ {
		b.WriteString("5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tw\n")
	}
	rec, err := ParseTSV([]byte(b.String()))
	if err != nil || !rec.Truncated || len(rec.Pages[0].Lines[0].Words) != maxTSVWords {
		t.Fatalf("words beyond the bound: truncated=%v err=%v", rec != nil && rec.Truncated, err)
	}
	// A row outside any page, and a CRLF file.
	if _, err := ParseTSV([]byte(tsvHeader + "\n5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tw\n")); err == nil {
		t.Error("a word before its page was accepted")
	}
	rec, err = ParseTSV([]byte(strings.ReplaceAll(tsvHeader+"\n1\t1\t0\t0\t0\t0\t0\t0\t9\t9\t-1\t\n5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tword\n", "\n", "\r\n")))
	if err != nil || rec.Pages[0].Lines[0].Words[0].Text != "word" {
		t.Errorf("CRLF: %+v %v", rec, err)
	}
}

func FuzzParseTSV(f *testing.F) {
	for _, name := range []string{"slate.tsv", "card.tsv", "blank.tsv", "bad-columns.tsv"} {
		b, err := os.ReadFile("testdata/tsv/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(tsvHeader + "\n1\t1\t0\t0\t0\t0\t0\t0\t9\t9\t-1\t\n5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tw\x00\xff\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rec, err := ParseTSV(in)
		if err != nil {
			return
		}
		r := summarize(rec, frameConfidence)
		if r.Words < 0 || r.Confidence < 0 || r.Confidence > 100 || !utf8Valid(r.Text) {
			t.Fatalf("summary %+v", r)
		}
	})
}
