package nsfw

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	_ "github.com/metaharvest/metaharvest/extractors/video" // video_main_frames
)

// slideshow makes a 6 s video (320x240, 5 frames a second): 3 s of the
// people of video-001.png, then 3 s of the Adwaita icon over white.
func slideshow(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "slideshow.mp4")
	cmd := exec.Command("ffmpeg", "-v", "error", "-y",
		"-loop", "1", "-framerate", "5", "-t", "3", "-i", "testdata/video-001.png",
		"-loop", "1", "-framerate", "5", "-t", "3", "-i", "testdata/text-x-script.png",
		"-f", "lavfi", "-i", "color=white:s=320x240:r=5:d=3",
		"-filter_complex", "[0:v]scale=320:240,setsar=1,format=yuv420p[a];"+
			"[1:v]scale=320:240,format=rgba[icon];[2:v][icon]overlay=format=rgb,setsar=1,format=yuv420p[b];"+
			"[a][b]concat=n=2:v=1[v]",
		"-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast", "-g", "5", "-pix_fmt", "yuv420p", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, b)
	}
	return out
}

// checkSlideshow checks the segments of the slideshow: people (neutral)
// for 3 s, then the icon, none of it nsfw; and the data agrees with them.
// The icon is a drawing for the model when it sees the PNG (0.94, see
// goldens), much less once the frame went through H.264 and JPEG (0.05 to
// 0.7 by the way it was scaled: the model is that sensitive), so the test
// asks that its drawing score rise well above that of the people.
func checkSlideshow(t *testing.T, o extractors.Outcome, source string) {
	t.Helper()
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	t.Logf("%v", o.Data)
	if len(o.Segments) < 4 || o.Data["frames_analysed"] != len(o.Segments) || o.Data["frames_source"] != source {
		t.Fatalf("%d segments, data %v", len(o.Segments), o.Data)
	}
	maxPorn, sumDrawing, maxUnsafe := 0.0, 0.0, 0.0
	peopleDrawing, iconDrawing := 0.0, []float64(nil)
	for _, s := range o.Segments {
		n := s.Summary.NSFW
		if n == nil || n.Source != "nsfwjs" || n.NSFW || len(n.Categories) != 5 {
			t.Fatalf("segment at %v: %+v", s.Time, n)
		}
		switch {
		case s.Time < 2.9:
			if n.Categories["neutral"] < 0.9 {
				t.Errorf("segment at %v: people not neutral (%v)", s.Time, n.Categories)
			}
			peopleDrawing = math.Max(peopleDrawing, n.Categories["drawing"])
		case s.Time > 3.1:
			iconDrawing = append(iconDrawing, n.Categories["drawing"])
		}
		if math.Abs(n.NSFWScore-(n.Categories["porn"]+n.Categories["hentai"]+n.Categories["sexy"])) > 0.0003 {
			t.Errorf("segment at %v: nsfw_score %v, categories %v", s.Time, n.NSFWScore, n.Categories)
		}
		maxPorn = math.Max(maxPorn, n.Categories["porn"])
		sumDrawing += n.Categories["drawing"]
		maxUnsafe = math.Max(maxUnsafe, n.NSFWScore)
	}
	if len(iconDrawing) == 0 {
		t.Error("no segment of the icon")
	}
	for _, d := range iconDrawing {
		if d < 10*peopleDrawing || d < 0.02 {
			t.Errorf("drawing score of the icon %v, of the people %v", d, peopleDrawing)
		}
	}
	if got := o.Data["scores"].(map[string]any)["porn"].(float64); got != maxPorn {
		t.Errorf("scores.porn %v, highest of the segments %v", got, maxPorn)
	}
	if got, want := o.Data["mean_scores"].(map[string]any)["drawing"].(float64), sumDrawing/float64(len(o.Segments)); math.Abs(got-want) > 0.001 {
		t.Errorf("mean_scores.drawing %v, mean of the segments %v", got, want)
	}
	if got := o.Data["nsfw_score"].(float64); math.Abs(got-maxUnsafe) > 0.0002 {
		t.Errorf("nsfw_score %v, highest of the segments %v", got, maxUnsafe)
	}
	if o.Data["nsfw"] != false || o.Data["nsfw_frames"] != 0 || o.Data["first_nsfw_time"] != nil {
		t.Errorf("data %v", o.Data)
	}
}

// Without video_main_frames the frames are sampled here, one a second.
func TestVideoSampled(t *testing.T) {
	requireSidecar(t)
	o := run(t, shared, slideshow(t), "video/mp4", nil, "")
	checkSlideshow(t, o, "sampled")
	if len(o.Segments) != 6 {
		t.Errorf("%d segments, want one a second", len(o.Segments))
	}
	for i, s := range o.Segments {
		if s.Time != float64(i) || s.Thumbnail != nil {
			t.Errorf("segment %d at %v, thumbnail %v", i, s.Time, s.Thumbnail)
		}
	}
}

// With video_main_frames in the same harvest, its frames are classified,
// at its times (read from its artifact directory, as a harvest gives it).
func TestVideoMainFrames(t *testing.T) {
	requireSidecar(t)
	frames := extractors.NewRegistry()
	info, _ := extractors.Default.Get("video_main_frames")
	frames.MustRegister(info)
	frames.Configure(extractors.Config{Lookup: func(k string) (string, bool) {
		return "1", k == "VIDEO_MAIN_FRAMES_INTERVAL"
	}})
	defer frames.Close()
	path, root := slideshow(t), t.TempDir()
	in := &extractors.Input{ItemID: "0123456789abcdef0123456789abcdef", Name: "slideshow.mp4", Path: path, Size: -1,
		MIME: "video/mp4", ArtifactDir: root}
	mfo := extractors.RunOne(context.Background(), frames, "video_main_frames", in, 5*time.Minute)
	if mfo.Err != nil {
		t.Fatal(mfo.Err)
	}
	var mf struct {
		Frames []struct{ Time float64 } `json:"frames"`
	}
	if err := json.Unmarshal(mfo.JSON, &mf); err != nil {
		t.Fatal(err)
	}
	o := run(t, shared, path, "video/mp4", map[string]json.RawMessage{"video_main_frames": mfo.JSON}, root)
	checkSlideshow(t, o, "video_main_frames")
	if len(o.Segments) != len(mf.Frames) {
		t.Fatalf("%d segments for %d frames", len(o.Segments), len(mf.Frames))
	}
	for i, s := range o.Segments {
		if s.Time != mf.Frames[i].Time {
			t.Errorf("segment %d at %v, frame at %v", i, s.Time, mf.Frames[i].Time)
		}
	}
}

// After names video_main_frames, so that a harvest asking for both runs
// it first.
func TestRunsAfterMainFrames(t *testing.T) {
	info, _ := extractors.Default.Get("nsfw")
	if !slices.Contains(info.After, "video_main_frames") {
		t.Fatalf("After %v", info.After)
	}
	reg := extractors.NewRegistry()
	reg.MustRegister(info)
	mf, _ := extractors.Default.Get("video_main_frames")
	reg.MustRegister(mf)
	if got := reg.Order([]string{"nsfw", "video_main_frames"}); !slices.Equal(got, []string{"video_main_frames", "nsfw"}) {
		t.Errorf("order %v", got)
	}
}

// A picture whose type says video (a JPEG named .mp4) is classified as a
// picture.
func TestStillCalledVideo(t *testing.T) {
	requireSidecar(t)
	o := run(t, shared, "testdata/goexif-sample1.jpg", "video/mp4", nil, "")
	if o.Err != nil || o.Data["frames_source"] != "image" || len(o.Segments) != 0 {
		t.Fatalf("%v, %v, %d segments", o.Err, o.Data, len(o.Segments))
	}
}
