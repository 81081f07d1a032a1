package office

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

func registry(t testing.TB) *extractors.Registry {
	return extractortest.Registry(t, nil, "store", "mime_type", "officex")
}

// run runs officex on a file (or on its bytes given as Content, as the
// worker passes small files, with a Path that does not exist).
func run(t testing.TB, path string, asContent bool) extractors.Outcome {
	t.Helper()
	in := extractortest.Input(t, path)
	if asContent {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		in.Content, in.Path = b, filepath.Join(t.TempDir(), "not-read")
	}
	return extractortest.Run(t, registry(t), "officex", in)
}

func TestSuite(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/sample-*")
	got := extractortest.Suite(t, registry(t), files)
	if len(got["officex"]) != len(files) {
		t.Errorf("suite ran on %d files", len(got["officex"]))
	}
}

// Expected values were read with unzip -p and by eye from the parts
// (word/document.xml, xl/sharedStrings.xml, docProps/*.xml, content.xml,
// meta.xml) when the files were added.
func TestOfficeGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want map[string]any
	}{
		{"sample-docx.docx", map[string]any{"format": "docx", "text": "asdasdasdasd", "created": "2018-05-30T16:52:19Z",
			"modified": "2018-05-30T16:53:09Z", "page_count": 1.0, "word_count": 1.0, "character_count": 12.0,
			"application": "LibreOffice/5.1.6.2$Linux_X86_64 LibreOffice_project/10m0$Build-2"}},
		{"sample-xlsx.xlsx", map[string]any{"format": "xlsx", "sheet_count": 1.0, "sheets": []any{"Foaie1"},
			"text": "this\tis\tan\texample\tspreadsheet"}},
		{"sample-xlsx.2.xlsx", map[string]any{"format": "xlsx", "sheet_count": 5.0, "sheets": []any{"Foaie1",
			"Copie a foii Foaie1", "Copie a foii Copie a foii Foaie", "Copie a foii Copie a foii Copie", "Foaie2"}}},
		{"sample-pptx.pptx", map[string]any{"format": "pptx", "slide_count": 1.0, "text": "asdasd\nasdasdasddd",
			"created": "2018-05-30T16:51:06Z"}},
		{"sample-odt.odt", map[string]any{"format": "odt", "text": "Hello world", "word_count": 2.0, "character_count": 11.0,
			"page_count": 1.0, "created": "2019-05-08T13:04:17Z", "modified": "2019-05-08T13:05:55Z"}},
		{"sample-ods.ods", map[string]any{"format": "ods", "sheet_count": 1.0, "sheets": []any{"Sheet1"}, "text": "Hello\tWorld"}},
		{"sample-odp.odp", map[string]any{"format": "odp", "title": "Bright Blue", "slide_count": 1.0,
			"slide_titles": []any{"Hello World"}, "text": "Hello World", "created": "2019-05-08T14:05:02Z",
			"application": "LibreOffice/6.0.7.3$Linux_X86_64 LibreOffice_project/00m0$Build-3"}},
	} {
		for _, asContent := range []bool{false, true} {
			d := extractortest.Data(t, run(t, "testdata/"+tc.file, asContent))
			for k, w := range tc.want {
				if !reflect.DeepEqual(d[k], w) {
					t.Errorf("%s (content %v): %s = %#v, want %#v", tc.file, asContent, k, d[k], w)
				}
			}
		}
	}
	d := extractortest.Data(t, run(t, "testdata/sample-xlsx.2.xlsx", false))
	if text, _ := d["text"].(string); !strings.HasPrefix(text, "asdasdasd\na\nasd") {
		t.Errorf("xlsx.2 text %.80q", text)
	}
}

// zipOf writes a zip of the named parts.
func zipOf(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range sortedKeys(parts) {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(parts[name]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	return keys
}

const contentTypes = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`

func wordDoc(body string) string {
	return `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		body + `</w:body></w:document>`
}

// A small docx written here exercises what the samples lack: tabs, breaks,
// deleted text, alternate content, footnotes, properties.
func TestWordStructure(t *testing.T) {
	t.Parallel()
	b := zipOf(t, map[string]string{
		"[Content_Types].xml": contentTypes,
		"_rels/.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
		"word/_rels/document.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/></Relationships>`,
		"word/document.xml": wordDoc(`<w:p><w:r><w:t>Quarterly</w:t></w:r><w:r><w:tab/><w:t xml:space="preserve">report </w:t></w:r>` +
			`<w:del><w:r><w:delText>secret draft</w:delText></w:r></w:del><w:r><w:br/><w:t>Second line &amp; more</w:t></w:r></w:p>` +
			`<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice><w:p><w:r><w:t>Text box</w:t></w:r></w:p></mc:Choice>` +
			`<mc:Fallback><w:p><w:r><w:t>Text box</w:t></w:r></w:p></mc:Fallback></mc:AlternateContent>`),
		"word/footnotes.xml": `<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:footnote><w:p><w:r><w:t>A footnote.</w:t></w:r></w:p></w:footnote></w:footnotes>`,
		"docProps/core.xml": `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/">
<dc:title>Q3 Report</dc:title><dc:creator>Ada Lovelace</dc:creator><cp:lastModifiedBy>Charles Babbage</cp:lastModifiedBy><cp:keywords>engines, numbers</cp:keywords>
<dcterms:created>2024-02-29T10:00:00Z</dcterms:created><dcterms:modified>2024-03-01T08:30:00+01:00</dcterms:modified></cp:coreProperties>`,
	})
	p := filepath.Join(t.TempDir(), "report.docx")
	os.WriteFile(p, b, 0o644)
	d := extractortest.Data(t, run(t, p, false))
	want := map[string]any{"format": "docx", "title": "Q3 Report", "creator": "Ada Lovelace", "last_modified_by": "Charles Babbage",
		"keywords": "engines, numbers", "created": "2024-02-29T10:00:00Z", "modified": "2024-03-01T08:30:00+01:00",
		"text": "Quarterly\treport \nSecond line & more\nText box\nA footnote."}
	for k, w := range want {
		if d[k] != w {
			t.Errorf("%s = %#v, want %#v", k, d[k], w)
		}
	}
}
