package pdf

import (
	"os/exec"
	"testing"
)

func FuzzPDFInfo(f *testing.F) {
	if out, err := exec.Command("pdfinfo", "-isodates", "-enc", "UTF-8", "-f", "1", "-l", "50", "testdata/multicell.pdf").Output(); err == nil {
		f.Add(string(out))
	}
	f.Add("Title:  a\nb\nPages: 3\nPage    1 size: 1 x 2 pts\nPage size: 1e400 x 5 pts\nCreationDate: 2020-13-45T99:99:99\n")
	f.Add("Pages: -1\n")
	f.Fuzz(func(t *testing.T, out string) {
		inf, err := parsePDFInfo(out)
		if err != nil {
			return
		}
		if inf.Pages < 0 || len(inf.Title) > 1024 {
			t.Fatalf("parsed %+v", inf)
		}
		for _, s := range inf.PageSizes {
			if !(s[0] > 0) || !(s[1] > 0) {
				t.Fatalf("page size %v", s)
			}
		}
	})
}

func FuzzPDFImages(f *testing.F) {
	if out, err := exec.Command("pdfimages", "-list", "testdata/image.pdf").Output(); err == nil {
		f.Add(string(out))
	}
	f.Add("   1     0 image     0    0  rgb     3   8  jpeg   no         9  0    0    0 1B  1%\n")
	f.Fuzz(func(t *testing.T, out string) {
		for page, p := range parsePDFImages(out) {
			if page < 1 || p.count < 1 || p.area < 0 {
				t.Fatalf("page %d: %+v", page, p)
			}
		}
	})
}

func FuzzSplitPages(f *testing.F) {
	f.Add("a\n\n\n b  \fc\f", false)
	f.Add("\f\f\f", true)
	f.Fuzz(func(t *testing.T, out string, cut bool) {
		if len(splitPages(out, cut)) == 0 && !cut {
			t.Fatal("no page")
		}
	})
}
