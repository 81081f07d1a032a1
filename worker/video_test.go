package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	_ "github.com/metaharvest/metaharvest/extractors/families" // every extractor family, as the binary links them
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// generateClip writes a clip made by ffmpeg into the container.
func (f *fixture) generateClip(rel string, args ...string) {
	f.t.Helper()
	extractortest.FFmpeg(f.t, append(args, filepath.Join(f.media, rel))...)
}

// A harvest of a folder of video: the clip's frames at its scene changes
// become segments with thumbnails (files under DATA_DIR/artifacts, rows in
// artifacts), searchable once the outbox is drained; its preview is an
// artifact too; a truncated clip and a pixel flood are recorded errors of
// the extractors while the worker goes on.
func TestHarvestVideoSegmentsAndPreviews(t *testing.T) {
	t.Parallel()
	f := newFixture(t, extractors.Default)
	// 2 s red, 2 s blue, 2 s test pattern, with sound.
	f.generateClip("clip.mp4",
		"-f", "lavfi", "-i", "color=red:s=320x240:r=25:d=2",
		"-f", "lavfi", "-i", "color=blue:s=320x240:r=25:d=2",
		"-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=2",
		"-f", "lavfi", "-i", "sine=d=6",
		"-filter_complex", "[0][1][2]concat=n=3:v=1:a=0[v]", "-map", "[v]", "-map", "3:a",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac")
	f.generateClip("whole.mp4", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=6", "-c:v", "libx264", "-g", "25",
		"-pix_fmt", "yuv420p", "-movflags", "+faststart")
	whole, err := os.ReadFile(filepath.Join(f.media, "whole.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(f.media, "whole.mp4"))
	f.write("truncated.mp4", string(whole[:len(whole)/2]))
	f.write("flood.y4m", "YUV4MPEG2 W9000 H5000 F25:1 Ip A1:1 C420jpeg\nFRAME\n"+strings.Repeat("\x80", 4096))
	f.startWorker()

	req := f.harvest(jobs.Spec{Extractors: []string{"video_main_frames", "video_previews", "audio_previews"}})
	job := f.waitJob(req, 2*time.Minute)
	if job.WalkedCount != 3 || job.IndexedCount != 3 {
		t.Fatalf("job: %+v", job)
	}
	var clip models.Item
	if err := f.db.Where("path = 'clip.mp4'").Take(&clip).Error; err != nil {
		t.Fatal(err)
	}

	// The worker recorded the hostile files' errors and went on.
	for path, want := range map[string]string{"truncated.mp4": "truncated", "flood.y4m": "over the limit"} {
		var acts []models.Activity
		f.db.Where("request_id = ? AND kind = ? AND source = ? AND name = 'video_main_frames'", req, models.ActivityExtractor, path).Find(&acts)
		if len(acts) != 1 || !strings.Contains(acts[0].Error, want) {
			t.Errorf("%s: activities %+v", path, acts)
		}
	}
	var clipErrs []models.Activity
	f.db.Where("item_id = ? AND kind = ? AND error <> ''", clip.ID, models.ActivityExtractor).Find(&clipErrs)
	if len(clipErrs) != 0 {
		t.Fatalf("clip errors: %+v", clipErrs)
	}

	// Frames and the preview are artifacts with their files.
	var arts []models.Artifact
	f.db.Where("item_id = ?", clip.ID).Order("path").Find(&arts)
	kinds := map[string]int{}
	for _, a := range arts {
		kinds[a.Extractor+"/"+a.Kind]++
		if _, err := os.Stat(filepath.Join(f.deps.Config.DataDir, "artifacts", filepath.FromSlash(a.Path))); err != nil {
			t.Errorf("artifact %s: %v", a.Path, err)
		}
	}
	if kinds["video_main_frames/frame"] != 3 || kinds["video_previews/preview"] != 1 || len(arts) != 4 {
		t.Errorf("artifacts %+v", arts)
	}

	// Drained into the search engine, the segments are found by item and
	// carry their thumbnails, like POST /api/data/segments/search and
	// GET /api/data/segments/{id} return them.
	ctx := context.Background()
	eng := f.drained()
	all := search.Visibility{All: true}
	res, err := eng.SearchSegments(ctx, search.SegmentRequest{Limit: 10,
		Filters:    &search.SegmentFilters{ExactTerms: []search.Term{{Field: "item_id", Value: search.FlexString(clip.ID)}}},
		SortFields: []search.SortField{{Field: "time", Asc: true}}}, all)
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalHits != 3 || len(res.Results) != 3 {
		t.Fatalf("segments: %+v", res)
	}
	wantTimes := []float64{0, 2, 4}
	for i, r := range res.Results {
		b, _ := json.Marshal(r.Result)
		var seg search.Segment
		if err := json.Unmarshal(b, &seg); err != nil {
			t.Fatal(err)
		}
		if !nearly(seg.Time, wantTimes[i], 0.05) || seg.ItemID != clip.ID || seg.Thumbnail == nil || seg.Thumbnail.Type != "image" ||
			seg.Thumbnail.Width != 320 || seg.Thumbnail.Height != 240 ||
			!strings.HasSuffix(seg.Thumbnail.Path, clip.ID+fmt.Sprintf("/video_main_frames/frames/%09d.jpg", int(wantTimes[i]*1000))) ||
			seg.Thumbnail.URL != "/api/data/artifacts/"+seg.Thumbnail.Path {
			t.Errorf("segment %d: %s", i, b)
		}
		one, err := eng.GetSegment(ctx, seg.ID, all)
		if err != nil || one.Thumbnail == nil || *one.Thumbnail != *seg.Thumbnail || one.Time != seg.Time {
			t.Errorf("GET segment %s: %+v %v", seg.ID, one, err)
		}
		// The thumbnail is one of the item's artifacts, so the api serves it.
		if f.count(&models.Artifact{}, "item_id = ? AND path = ? AND kind = 'frame'", clip.ID, seg.Thumbnail.Path) != 1 {
			t.Errorf("segment %d: thumbnail %s is not an artifact", i, seg.Thumbnail.Path)
		}
	}

	// The extractor's data is on the item, in the fixed shape faces and
	// OCR read.
	var meta struct {
		Frames struct {
			Count  int `json:"count"`
			Frames []struct {
				Time   float64 `json:"time"`
				Path   string  `json:"path"`
				Reason string  `json:"reason"`
			} `json:"frames"`
		} `json:"video_main_frames"`
		Preview struct {
			Path     string  `json:"path"`
			Duration float64 `json:"duration"`
		} `json:"video_previews"`
	}
	f.db.Where("id = ?", clip.ID).Take(&clip)
	if err := json.Unmarshal(clip.Metadata, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Frames.Count != 3 || meta.Frames.Frames[1].Reason != "scene" || meta.Frames.Frames[1].Path != "frames/000002000.jpg" ||
		meta.Preview.Path != "preview.mp4" || !nearly(meta.Preview.Duration, 6, 0.2) {
		t.Errorf("metadata %s", clip.Metadata)
	}
}

func nearly(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }
