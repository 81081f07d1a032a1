package worker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	_ "github.com/metaharvest/metaharvest/extractors/standard"
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
	f.startWorker()

	req := f.harvest(jobs.Spec{Extractors: documentExtractors, OverrideExtractors: true})
	job := f.waitJob(req, 2*time.Minute)
	if job.IndexedCount != 5 || job.ErrorCount != 0 {
		t.Fatalf("job counts: %+v", job)
	}

	ctx := context.Background()
	eng := f.drained()
	for _, tc := range []struct{ word, file, field string }{
		{"Scotia", "novel.pdf", "pdf.text"},
		{"asdasdasdasd", "letter.docx", "officex.text"},
		{"Bookworm", "releases.csv", "csv.text"},
		{"dingus", "fish.eml", "email.subject"},
		{"typography", "demo.txt", "text.text"},
	} {
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
