package office

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func FuzzZipEntryCount(f *testing.F) {
	for _, name := range []string{"sample-docx.docx", "sample-xlsx.xlsx"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		zipEntryCount(bytes.NewReader(b), int64(len(b)))
	})
}

// The whole extractor on arbitrary bytes: a result with bounded text or a
// deterministic error, never a panic.
func FuzzOfficex(f *testing.F) {
	for _, name := range []string{"sample-docx.docx", "sample-xlsx.xlsx", "sample-pptx.pptx"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(zipOf(f, map[string]string{"[Content_Types].xml": contentTypes, "word/document.xml": wordDoc("<w:p><w:r><w:t>x</w:t></w:r></w:p>")}))
	f.Add(zipOf(f, map[string]string{"mimetype": "application/vnd.oasis.opendocument.spreadsheet",
		"content.xml": `<d xmlns:office="o" xmlns:table="t" xmlns:text="x"><office:body><office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell><text:p>a<text:s text:c="3"/>b</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></d>`}))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := officeExtractor{}.Extract(context.Background(), &extractors.Input{Name: "f.docx", Content: b})
		if err != nil {
			if extractors.IsTransient(err) {
				t.Fatalf("transient error on content: %v", err)
			}
			return
		}
		if s, _ := res.Data["text"].(string); len(s) > doctext.MaxText {
			t.Fatalf("text of %d bytes", len(s))
		}
	})
}
