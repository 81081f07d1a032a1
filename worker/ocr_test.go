package worker

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	_ "github.com/metaharvest/metaharvest/extractors/families"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// A scanned page (a page of a gofpdf PDF rendered to a picture by
// pdftoppm) is harvested with tesseract, and a word printed on it, not in
// its name, finds it through search with the word highlighted in
// tesseract's text.
func TestHarvestPictureSearchableByItsWords(t *testing.T) {
	t.Parallel()
	if ok, why := extractors.Default.Available("tesseract"); !ok {
		t.Skipf("tesseract: %s", why)
	}
	f := newFixture(t, extractortest.Registry(t, nil, "store", "mime_type", "tesseract"))
	dir := t.TempDir()
	out, err := exec.Command("pdftoppm", "-png", "-gray", "-r", "100", "-f", "1", "-l", "1", "-singlefile",
		filepath.Join("..", "extractors", "ocr", "testdata", "multicell.pdf"), filepath.Join(dir, "page")).CombinedOutput()
	if err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	f.write("scans/scan-0001.png", string(b))
	f.startWorker()

	req := f.harvest(jobs.Spec{Extractors: []string{"tesseract"}, OverrideExtractors: true})
	job := f.waitJob(req, 2*time.Minute)
	if job.IndexedCount != 1 || job.ErrorCount != 0 {
		var acts []models.Activity
		f.db.Where("request_id = ?", req).Find(&acts)
		t.Fatalf("job counts: %+v %+v", job, acts)
	}
	ctx := context.Background()
	eng := f.drained()
	// "bizarre" is printed on the page (pdftotext reads "The year 1866 was
	// marked by a bizarre development" from the PDF).
	res, err := eng.Search(ctx, search.Request{Query: "bizarre", Limit: 10}, search.Visibility{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalHits != 1 || len(res.Results) != 1 || res.Results[0].Result["name"] != "scan-0001.png" {
		t.Fatalf("search bizarre: %d hits %+v", res.TotalHits, res.Results)
	}
	found := false
	for _, h := range res.Results[0].Highlight {
		for _, frag := range h.Fragments {
			if h.Field == "tesseract.text" && strings.Contains(strings.ToLower(frag), "<em>bizarre</em>") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no highlight of bizarre in tesseract.text: %+v", res.Results[0].Highlight)
	}
}
