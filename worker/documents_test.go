package worker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	_ "github.com/metaharvest/metaharvest/extractors/families"
	"github.com/metaharvest/metaharvest/extractors/places"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/search"
)

// documentExtractors are the extractors this test harvests with.
var documentExtractors = []string{"text", "pdf", "officex", "csv", "email"}

// A folder of documents is harvested with the document extractors, and a
// word inside each file (not in its name) finds it through search, with
// the word highlighted in the extractor's text field.
func TestHarvestDocumentsSearchableByTheirWords(t *testing.T) {
	t.Parallel()
	if ok, why := extractors.Default.Available("pdf"); !ok {
		t.Skipf("pdf: %s (poppler-utils)", why)
	}
	f := newFixture(t, extractortest.Registry(t, nil, append([]string{"store", "mime_type"}, documentExtractors...)...))
	f.copySample("pdf/testdata/multicell.pdf", "reports/novel.pdf")
	f.copySample("office/testdata/sample-docx.docx", "reports/letter.docx")
	f.copySample("documents/testdata/debian.csv", "data/releases.csv")
	f.copySample("documents/testdata/dingus.eml", "mail/fish.eml")
	f.copySample("documents/testdata/utf8.txt", "notes/demo.txt")
	f.copySample("office/testdata/sample-xlsx.xlsx", "sheets/budget.xlsx")
	f.copySample("office/testdata/sample-pptx.pptx", "talks/deck.pptx")
	f.copySample("office/testdata/sample-odt.odt", "reports/draft.odt")
	f.startWorker()

	req := f.harvest(jobs.Spec{Extractors: documentExtractors, OverrideExtractors: true})
	job := f.waitJob(req, 2*time.Minute)
	if job.IndexedCount != 8 || job.ErrorCount != 0 {
		t.Fatalf("job counts: %+v", job)
	}

	// The words were read from the files' parts with unzip -p (see
	// extractors/office/testdata/README.md): xl/sharedStrings.xml "this is
	// an example spreadsheet", ppt/slides/slide1.xml "asdasd asdasdasddd",
	// content.xml "Hello world".
	searchFinds(t, f.drained(), []wordIn{
		{"Scotia", "novel.pdf", "pdf.text"},
		{"asdasdasdasd", "letter.docx", "officex.text"},
		{"Bookworm", "releases.csv", "csv.text"},
		{"dingus", "fish.eml", "email.subject"},
		{"typography", "demo.txt", "text.text"},
		{"spreadsheet", "budget.xlsx", "officex.text"},
		{"asdasdasddd", "deck.pptx", "officex.text"},
		{"Hello", "draft.odt", "officex.text"},
	})
}

// wordIn is a word that a search must find in one file only, highlighted
// in field.
type wordIn struct{ word, file, field string }

// searchFinds searches each word and wants one hit, the file, with the
// word highlighted in the field.
func searchFinds(t *testing.T, eng search.Engine, words []wordIn) {
	t.Helper()
	ctx := context.Background()
	for _, tc := range words {
		res, err := eng.Search(ctx, search.Request{Query: tc.word, Limit: 10}, search.Visibility{All: true})
		if err != nil {
			t.Fatalf("search %s: %v", tc.word, err)
		}
		if res.TotalHits != 1 || len(res.Results) != 1 || res.Results[0].Result["name"] != tc.file {
			t.Errorf("search %q: %d hits %+v, want %s", tc.word, res.TotalHits, res.Results, tc.file)
			continue
		}
		found := false
		for _, h := range res.Results[0].Highlight {
			for _, frag := range h.Fragments {
				if h.Field == tc.field && strings.Contains(strings.ToLower(frag), "<em>"+strings.ToLower(tc.word)+"</em>") {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("search %q: no highlight in %s: %+v", tc.word, tc.field, res.Results[0].Highlight)
		}
	}
}

// The goexif GPS JPEGs (Debian golang-github-rwcarlsen-goexif-dev, named
// as goexif names them, not after their places) are harvested with exiv2
// and geocoding, and a search for the place each was taken in finds it,
// the place name highlighted in geocoding's data. The places are those of
// extractors/places' golden tests, looked up by hand from the coordinates
// exiftool prints: central Beijing, central Stockholm, farmland in
// Saxony-Anhalt (no city: Germany).
func TestHarvestGPSPhotosSearchableByPlace(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"exiv2", "geocoding"} {
		if ok, why := extractors.Default.Available(name); !ok {
			t.Skipf("%s: %s", name, why)
		}
	}
	// The countries' polygons (the Saxony-Anhalt photo is in no city) are
	// loaded once per process; loaded first, without a time limit, their
	// load (a minute under -race on a busy machine) does not run into the
	// fixture's extractor time limit and the retries that would follow.
	geo, err := places.NewGeocoder(places.Levels{Countries: true, Cities: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := geo.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, extractortest.Registry(t, nil, "store", "mime_type", "exiv2", "geocoding"))
	f.copySample("images/testdata/goexif-sample1.jpg", "photos/sample1.jpg")
	f.copySample("images/testdata/goexif-has-lens-info.jpg", "photos/has-lens-info.jpg")
	f.copySample("images/testdata/goexif-geodegrees_as_string.jpg", "photos/geodegrees_as_string.jpg")
	f.startWorker()

	req := f.harvest(jobs.Spec{Extractors: []string{"exiv2", "geocoding"}, OverrideExtractors: true})
	job := f.waitJob(req, 2*time.Minute)
	if job.IndexedCount != 3 || job.ErrorCount != 0 {
		t.Fatalf("job counts: %+v", job)
	}
	searchFinds(t, f.drained(), []wordIn{
		{"Beijing", "sample1.jpg", "geocoding.city"},
		{"Stockholm", "has-lens-info.jpg", "geocoding.city"},
		{"Germany", "geodegrees_as_string.jpg", "geocoding.country.name"},
	})
}
