package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
)

// air-api-sample harvests with 48 extractor names of the original product
// (issue 9: 400 unknown extractors). Each item runs what can run and
// records every other extractor, aliases resolved, as "not available".
func TestHarvestWithOriginalClientExtractorNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t, extractors.Default)
	f.write("notes/readme.txt", "hello\n")
	f.startWorker()
	names := []string{
		"archive", "audioinfo", "audio_previews", "audiopeak", "black_scenes", "caption_files",
		"captionsv2", "slates", "gm_color_bars", "credits", "csv", "dbf", "gm_digital_slates",
		"document_pages", "dpx", "drm", "email", "captions", "exiv2", "fdx", "geocoding",
		"gm_audio_classification", "gm_faces", "hashes", "html", "json", "gmlanguage", "gmlogos",
		"m2ts", "mediainfo", "mime_type", "gmocr", "officex", "pdf", "gm_silence", "gms2t",
		"gmsports", "gm_start_end", "stow", "gm_texted", "gm_textless", "thumbnailer", "tokens",
		"video_main_frames", "video_previews", "volumedetect", "weather", "xml",
	}
	// Beside them, an extractor of ours that cannot run here (no provider
	// key) and reads any file: it records why.
	names = append(names, "tokens_provider")
	req := f.harvest(jobs.Spec{Extractors: names, OverrideExtractors: true, Force: true, IgnoreRecentlyWalked: true})
	if job := f.waitJob(req, time.Minute); job.WalkedCount != 1 || job.EnqueuedCount != 1 {
		t.Fatalf("job %+v", job)
	}
	var rows []models.Activity
	f.db.Where("request_id = ? AND kind = ?", req, models.ActivityExtractor).Find(&rows)
	errs := map[string]string{}
	for _, r := range rows {
		errs[r.Name] = r.Error
	}
	if e, ok := errs["hashes"]; !ok || e != "" {
		t.Errorf("hashes: ran %v, error %q", ok, e)
	}
	// gms2t is the offline speech to text here (extractors/speech) and
	// gmlogos the logo detection (extractors/recognition): they ran under their
	// own names, and a text file is neither's (nothing recorded).
	for _, alias := range []string{"gm_faces", "gmocr", "stow", "gmsports", "gms2t", "gmlogos"} {
		if _, ok := errs[alias]; ok {
			t.Errorf("an activity row names the alias %s", alias)
		}
	}
	if e := errs["tokens_provider"]; !strings.HasPrefix(e, "not available: nlp provider setting NLP_API_URL, NLP_API_KEY not set") {
		t.Errorf("tokens_provider: %q", e)
	}
	unavailable := 0
	for name, e := range errs {
		if ok, _ := f.deps.Extractors.Available(name); !ok {
			unavailable++
			if !strings.HasPrefix(e, "not available: ") {
				t.Errorf("%s cannot run here, but recorded %q", name, e)
			}
		}
	}
	// Extractors that cannot run here and do not take text files (weather,
	// the vendor analyses) are skipped by their Accept like any other: of
	// the unavailable ones, only those that would read this file record it.
	if unavailable < 1 {
		t.Errorf("%d unavailable extractors recorded: %v", unavailable, errs)
	}
}
