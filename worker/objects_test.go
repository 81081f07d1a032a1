package worker

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Objects found offline are searchable by word: "cup" finds the photo of
// the coffee and the moment of the video that shows it, as a segment;
// "laptop" the photo of the stage (in the video's small, compressed
// frames the model no longer sees it), "person" the video's first moment.
func TestHarvestObjectsSearchable(t *testing.T) {
	t.Parallel()
	reg := extractortest.Registry(t, map[string]string{"VISION_SIDECAR_DIR": extractortest.VisionDir(t)},
		"store", "mime_type", "video_main_frames", "objects")
	f := newFixture(t, reg)
	f.copySample("nsfw/testdata/video-001.png", "stage.png")
	f.copySample("objects/testdata/coffee.jpg", "coffee.jpg")
	// 3 s of the stage, then 3 s of the coffee cup.
	f.generateClip("talk.mp4", "-loop", "1", "-t", "3", "-i", filepath.Join("..", "extractors", "nsfw", "testdata", "video-001.png"),
		"-loop", "1", "-t", "3", "-i", filepath.Join("..", "extractors", "objects", "testdata", "coffee.jpg"),
		"-filter_complex", "[0]scale=320:220,setsar=1[a];[1]scale=320:220,setsar=1[b];[a][b]concat=n=2:v=1[v]", "-map", "[v]",
		"-r", "5", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p")
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"video_main_frames", "objects"}})
	job := f.waitJob(req, 3*time.Minute)
	if job.WalkedCount != 3 || job.ErrorCount != 0 {
		var acts []models.Activity
		f.db.Where("request_id = ? AND error <> ''", req).Find(&acts)
		t.Fatalf("job %+v: %+v", job, acts)
	}
	var video models.Item
	f.db.Where("path = 'talk.mp4'").Take(&video)
	ctx := context.Background()
	eng := f.drained()
	for word, want := range map[string][]string{"laptop": {"stage.png"}, "cup": {"coffee.jpg", "talk.mp4"}} {
		res, err := eng.Search(ctx, search.Request{Query: word, Limit: 10}, search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		names := map[any]bool{}
		for _, r := range res.Results {
			names[r.Result["name"]] = true
		}
		for _, w := range want {
			if !names[w] {
				t.Errorf("search %s: %d hits %v, want %s; video data %s", word, res.TotalHits, names, w, video.Metadata)
			}
		}
	}
	for word, want := range map[string]float64{"person": 0, "cup": 3} {
		segs, err := eng.SearchSegments(ctx, search.SegmentRequest{Query: word, Limit: 10,
			Filters: &search.SegmentFilters{ExactTerms: []search.Term{{Field: "item_id", Value: search.FlexString(video.ID)}}}},
			search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		var times []any
		for _, s := range segs.Results {
			times = append(times, s.Result["time"])
			var tm float64
			if _, err := fmt.Sscan(fmt.Sprint(s.Result["time"]), &tm); err == nil && tm >= want && tm < want+3 {
				found = true
			}
		}
		if !found {
			t.Errorf("segments of %q: %d at %v", word, segs.TotalHits, times)
		}
	}
}
