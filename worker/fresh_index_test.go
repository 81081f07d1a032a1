package worker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
)

// odd returns data whose JSON differs from its Go form in every way a
// search document could notice: floats Postgres prints otherwise, integers
// beyond float precision, typed slices and maps, structs, times, invalid
// UTF-8, markup, dates, nesting, an empty and a nil value.
type odd struct{}

func (odd) Extract(_ context.Context, in *extractors.Input) (*extractors.Result, error) {
	type probe struct {
		Codec string  `json:"codec"`
		Rate  float64 `json:"rate"`
	}
	return &extractors.Result{Data: map[string]any{
		"huge": 1e21, "tiny": 1e-7, "tenth": 0.1, "third": 1.0 / 3, "big": int64(1) << 60, "small": int32(-7),
		"tags":     []string{"<b>Bold</b> & co", "caf\xe9 \xff\xfe broken", "2024-03-01T10:00:00Z"},
		"labels":   map[string]string{"lang": "en", "path": in.Path},
		"streams":  []probe{{Codec: "h264", Rate: 29.97}, {Codec: "aac", Rate: 48000}},
		"recorded": time.Date(2023, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600)),
		"nested":   map[string]any{"deep": map[string]any{"list": []any{1, "two", 3.5, true, nil}}},
		"empty":    map[string]any{}, "none": nil, "flag": false, "words": "Searchable words here",
	}}, nil
}

// talks reports a segment and a caption for videos (what the documents of
// new files read back, being written in the same transaction), nothing
// for other files.
type talks struct{}

func (talks) Extract(_ context.Context, in *extractors.Input) (*extractors.Result, error) {
	if !strings.HasSuffix(in.Name, ".mp4") {
		return &extractors.Result{}, nil
	}
	return &extractors.Result{
		Segments: []extractors.Segment{{Time: 1.5, Summary: extractors.SegmentSummary{Tags: []extractors.SegmentTag{{Name: "walrus", Confidence: 0.9}}}}},
		Captions: []extractors.Caption{{Source: "speech", Language: "en", Format: "srt",
			Cues: []extractors.Cue{{Start: 0, End: 2, Text: "the quokka speaks"}}}},
	}, nil
}

// The documents of new files are made from what the harvest holds, not
// read back from their rows (search.Fresh): they must be exactly the
// documents read back from the rows, column for column, number for number,
// with their segments and captions.
func TestFreshDocumentsAreTheDocumentsOfTheRows(t *testing.T) {
	t.Parallel()
	reg := extractortest.Registry(t, nil, "store", "mime_type", "hashes")
	reg.MustRegister(extractors.Info{Name: "odd", Family: extractors.FamilyTechnical, DisplayName: "Odd", Version: "1", Implemented: true, DefaultEnabled: true,
		New: func(extractors.Env) (extractors.Extractor, error) { return odd{}, nil }})
	reg.MustRegister(extractors.Info{Name: "nothing", Family: extractors.FamilyTechnical, DisplayName: "Nothing", Version: "1", Implemented: true, DefaultEnabled: true,
		New: func(extractors.Env) (extractors.Extractor, error) { return nothing{}, nil }})
	reg.MustRegister(extractors.Info{Name: "talks", Family: extractors.FamilyTechnical, DisplayName: "Talks", Version: "1", Implemented: true, DefaultEnabled: true,
		New: func(extractors.Env) (extractors.Extractor, error) { return talks{}, nil }})
	f := newFixture(t, reg)
	eng, err := postgres.New(f.db)
	if err != nil {
		t.Fatal(err)
	}
	f.deps.Search = eng
	f.write("clip one.mp4", "not really a video")
	f.write("notes/read me.txt", "hello words")
	f.write("ünïcode ✓.bin", "\x00\x01\x02")
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"store", "mime_type", "hashes", "odd", "nothing", "talks"}})
	if job := f.waitJob(req, time.Minute); job.IndexedCount != 3 || job.ErrorCount != 0 {
		var errs []string
		f.db.Raw(`SELECT error FROM activity_rows WHERE request_id = ? AND error <> ''`, req).Scan(&errs)
		t.Fatalf("job: %d indexed, %d errors: %q", job.IndexedCount, job.ErrorCount, errs)
	}
	fromHarvest := f.indexSnapshot()
	if len(fromHarvest) != 3+2 {
		t.Fatalf("index snapshot: %d documents", len(fromHarvest)-2)
	}
	for _, want := range []string{"quokka", "walrus"} {
		if !strings.Contains(fromHarvest["segments"], want) {
			t.Fatalf("segments snapshot lacks %q: %s", want, fromHarvest["segments"])
		}
	}
	var transcripts int
	for _, doc := range fromHarvest {
		if strings.Contains(doc, "the quokka speaks") {
			transcripts++
		}
	}
	if transcripts != 2 { // the video's document and its segment
		t.Fatalf("the caption is in %d documents and segments, want 2", transcripts)
	}
	// Every document again, built from the rows.
	if err := search.MarkDirtyWhere(f.db, "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := search.Drain(context.Background(), f.db, eng, 100); err != nil {
		t.Fatal(err)
	}
	fromRows := f.indexSnapshot()
	if testing.Verbose() {
		for id, doc := range fromRows {
			t.Logf("%s: %s", id, doc)
		}
	}
	for id, want := range fromRows {
		if got := fromHarvest[id]; got != want {
			t.Errorf("document %s\nfrom the harvest: %s\nfrom its row:     %s", id, got, want)
		}
	}
}

// nothing finds nothing: nil data.
type nothing struct{}

func (nothing) Extract(context.Context, *extractors.Input) (*extractors.Result, error) {
	return &extractors.Result{}, nil
}

// indexSnapshot is every indexed document, as stored: its row by id, the
// number rows all together under "numbers" and the segments' rows under
// "segments".
func (f *fixture) indexSnapshot() map[string]string {
	f.t.Helper()
	var docs []struct {
		ID  string
		Row json.RawMessage
	}
	if err := f.db.Raw(`SELECT id, to_jsonb(d) AS row FROM search_documents d ORDER BY id`).Scan(&docs).Error; err != nil {
		f.t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range docs {
		out[d.ID] = string(d.Row)
	}
	var numbers string
	if err := f.db.Raw(`SELECT coalesce(jsonb_agg(n ORDER BY n.id, n.path, n.date, n.x), '[]')::text FROM search_numbers n`).
		Scan(&numbers).Error; err != nil {
		f.t.Fatal(err)
	}
	out["numbers"] = numbers
	var segments string
	if err := f.db.Raw(`SELECT coalesce(jsonb_agg(to_jsonb(s) - 'indexed_at' ORDER BY s.id), '[]')::text FROM search_segments s`).
		Scan(&segments).Error; err != nil {
		f.t.Fatal(err)
	}
	out["segments"] = segments
	return out
}
