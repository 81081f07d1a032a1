package worker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
)

// frameMaker writes a frame artifact and reports a segment with it and a
// caption; its output changes with each round.
type frameMaker struct{ round *atomic.Int32 }

func (f frameMaker) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	r := f.round.Load()
	if err := os.MkdirAll(filepath.Join(in.ArtifactDir, "frames"), 0o755); err != nil {
		return nil, err
	}
	name := "frames/f.jpg"
	if err := os.WriteFile(filepath.Join(in.ArtifactDir, name), []byte{byte(r)}, 0o644); err != nil {
		return nil, err
	}
	return &extractors.Result{
		Data:      map[string]any{"round": r},
		Artifacts: []extractors.Artifact{{Path: name, Kind: "frame", Width: 4, Height: 3}},
		Segments: []extractors.Segment{
			{Time: float64(r), Thumbnail: &extractors.Thumbnail{Path: name, Width: 4, Height: 3, Type: "image"}},
			// Two moments rounding to the same millisecond are one part.
			{Time: float64(r) + 0.0001, Summary: extractors.SegmentSummary{OCR: []extractors.SegmentText{{Text: "EXIT"}}}},
		},
		Captions: []extractors.Caption{{Source: "embedded", Language: "en", Format: "srt",
			Cues: []extractors.Cue{{Start: 0, End: 1, Text: "round text"}}}},
	}, nil
}

// faceFinder reads the frames of frames and reports people on them; it finds
// nothing it handles in round 2.
type faceFinder struct{ round *atomic.Int32 }

func (f faceFinder) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if f.round.Load() == 2 {
		return nil, extractors.ErrUnsupported
	}
	if _, err := os.Stat(filepath.Join(in.ArtifactsOf("frames"), "frames", "f.jpg")); err != nil {
		return nil, err
	}
	return &extractors.Result{Segments: []extractors.Segment{{Time: float64(f.round.Load()),
		Summary: extractors.SegmentSummary{People: []extractors.SegmentPerson{{Source: "test"}}}}}}, nil
}

func TestHarvestRecordsSegmentsCaptionsAndArtifactsPerExtractor(t *testing.T) {
	t.Parallel()
	var round atomic.Int32
	round.Store(1)
	reg := testRegistry(t)
	reg.MustRegister(extractors.Info{Name: "frames", Family: extractors.FamilyTechnical, DisplayName: "Frames", Version: "1", Implemented: true, DefaultEnabled: true,
		New: func(extractors.Env) (extractors.Extractor, error) { return frameMaker{&round}, nil }})
	reg.MustRegister(extractors.Info{Name: "faces", Family: extractors.FamilyTechnical, DisplayName: "Faces", Version: "1", Implemented: true, DefaultEnabled: true,
		After: []string{"frames"},
		New:   func(extractors.Env) (extractors.Extractor, error) { return faceFinder{&round}, nil }})
	f := newFixture(t, reg)
	f.write("clip.mp4", "not really a video")
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"faces", "frames"}})
	f.waitJob(req, mediaJobWait)

	var item models.Item
	f.db.Where("path = 'clip.mp4'").Take(&item)
	var parts []models.SegmentPart
	f.db.Where("item_id = ?", item.ID).Order("extractor, time_ms").Find(&parts)
	if len(parts) != 2 || parts[0].Extractor != "faces" || parts[1].Extractor != "frames" || parts[1].TimeMS != 1000 {
		t.Fatalf("segment parts: %+v", parts)
	}
	wantThumb := `{"path":"` + item.ID[:2] + "/" + item.ID + `/frames/frames/f.jpg","width":4,"height":3,"type":"image"}`
	if string(parts[1].Thumbnail) != wantThumb && !jsonEqual(string(parts[1].Thumbnail), wantThumb) {
		t.Errorf("thumbnail = %s, want %s", parts[1].Thumbnail, wantThumb)
	}
	var caps []models.Caption
	f.db.Where("item_id = ?", item.ID).Find(&caps)
	if len(caps) != 1 || caps[0].Extractor != "frames" || caps[0].Language != "en" || caps[0].ID != CaptionID(item.ID, "frames", "", 0) {
		t.Fatalf("captions: %+v", caps)
	}
	var arts []models.Artifact
	f.db.Where("item_id = ?", item.ID).Find(&arts)
	if len(arts) != 1 || arts[0].Path != item.ID[:2]+"/"+item.ID+"/frames/frames/f.jpg" {
		t.Fatalf("artifacts: %+v", arts)
	}
	if _, err := os.Stat(filepath.Join(f.deps.Config.DataDir, "artifacts", filepath.FromSlash(arts[0].Path))); err != nil {
		t.Fatal(err)
	}

	// Round 2, faces only: it finds the file unsupported now. Its segment
	// part goes, with no activity row and no failure; frames' rows and
	// artifacts stay.
	round.Store(2)
	req2 := f.harvest(jobs.Spec{ItemID: item.ID, Extractors: []string{"faces"}, Force: true})
	f.waitJob(req2, mediaJobWait)
	f.db.Where("item_id = ?", item.ID).Order("extractor, time_ms").Find(&parts)
	if len(parts) != 1 || parts[0].Extractor != "frames" {
		t.Fatalf("round 2 segment parts: %+v", parts)
	}
	var faceRows int64
	f.db.Model(&models.Activity{}).Where("request_id = ? AND kind = 'extractor' AND name = 'faces'", req2).Count(&faceRows)
	f.db.Where("id = ?", item.ID).Take(&item)
	if faceRows != 0 || item.HarvestFailed {
		t.Errorf("unsupported recorded as %d activity rows, harvest_failed %v", faceRows, item.HarvestFailed)
	}
	f.db.Where("item_id = ?", item.ID).Find(&arts)
	if len(arts) != 1 {
		t.Errorf("frames' artifacts after a faces-only harvest: %+v", arts)
	}

	// Round 3, frames again: its segments, caption and artifacts are replaced.
	round.Store(3)
	req3 := f.harvest(jobs.Spec{ItemID: item.ID, Extractors: []string{"frames"}, Force: true})
	f.waitJob(req3, mediaJobWait)
	f.db.Where("item_id = ?", item.ID).Order("extractor, time_ms").Find(&parts)
	if len(parts) != 1 || parts[0].TimeMS != 3000 {
		t.Fatalf("round 3 segment parts: %+v", parts)
	}
	f.db.Where("item_id = ?", item.ID).Find(&caps)
	if len(caps) != 1 {
		t.Fatalf("round 3 captions: %+v", caps)
	}
	b, err := os.ReadFile(filepath.Join(f.deps.Config.DataDir, "artifacts", filepath.FromSlash(arts[0].Path)))
	if err != nil || len(b) != 1 || b[0] != 3 {
		t.Errorf("artifact after round 3: %v %v", b, err)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
