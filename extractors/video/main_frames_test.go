package video

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// A clip of 2 s red, 2 s blue and 2 s of test pattern has its scene
// changes at 2 and 4 s (by construction; the bare tool agrees:
// ffmpeg -i clip.mp4 -vf "select='gt(scene,0.3)',metadata=print" -f null -
// prints pts_time 2 and 4, with scores 0.40 and 0.91) and its first frame
// at 0 (a keyframe, due for a periodic frame too).
func TestMainFramesAtSceneChanges(t *testing.T) {
	t.Parallel()
	clip := extractortest.Clip(t, "scenes.mp4",
		"-f", "lavfi", "-i", "color=red:s=320x240:r=25:d=2",
		"-f", "lavfi", "-i", "color=blue:s=320x240:r=25:d=2",
		"-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=2",
		"-filter_complex", "[0][1][2]concat=n=3:v=1:a=0", "-c:v", "libx264", "-pix_fmt", "yuv420p")
	o, dir := run(t, newRegistry(t, nil), "video_main_frames", clip)
	mustSucceed(t, o)
	frames := framesOf(t, o)
	want := []struct {
		time   float64
		reason string
	}{{0, "keyframe"}, {2, "scene"}, {4, "scene"}}
	if len(frames) != len(want) || o.Data["count"] != len(want) {
		t.Fatalf("frames: %+v", frames)
	}
	for i, w := range want {
		f := frames[i]
		if !near(f.Time, w.time, 0.05) || f.Reason != w.reason || f.Width != 320 || f.Height != 240 {
			t.Errorf("frame %d: %+v, want %v s %s 320x240", i, f, w.time, w.reason)
		}
		if f.Path != fmt.Sprintf("frames/%09d.jpg", int64(f.Time*1000+0.5)) {
			t.Errorf("frame %d path %s", i, f.Path)
		}
	}
	if frames[1].Score < 0.3 || frames[2].Score < 0.3 {
		t.Errorf("scene scores %v %v", frames[1].Score, frames[2].Score)
	}
	// The frames show what is there at their time: red, blue, the pattern.
	r, g, b := meanRGB(readJPEG(t, filepath.Join(dir, frames[0].Path)))
	if r < 200 || g > 60 || b > 60 {
		t.Errorf("frame at 0 s is not red: %v %v %v", r, g, b)
	}
	r, g, b = meanRGB(readJPEG(t, filepath.Join(dir, frames[1].Path)))
	if b < 200 || r > 60 || g > 60 {
		t.Errorf("frame at 2 s is not blue: %v %v %v", r, g, b)
	}
	if o.Data["interval"] != 10.0 || !near(o.Data["duration"].(float64), 5, 1) {
		t.Errorf("interval %v duration %v", o.Data["interval"], o.Data["duration"])
	}
	// One segment and one frame artifact per frame, with the same file.
	if len(o.Segments) != 3 || len(o.Artifacts) != 3 {
		t.Fatalf("segments %d artifacts %d", len(o.Segments), len(o.Artifacts))
	}
	for i, s := range o.Segments {
		a := o.Artifacts[i]
		if s.Time != frames[i].Time || s.Thumbnail == nil || s.Thumbnail.Path != frames[i].Path || s.Thumbnail.Type != "image" ||
			s.Thumbnail.Width != 320 || a.Path != frames[i].Path || a.Kind != "frame" || a.Width != 320 || a.Height != 240 {
			t.Errorf("segment %d %+v artifact %+v", i, s, a)
		}
	}
	// Only the kept frames are left in the artifact directory.
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if strings.Join(files, " ") != strings.Join([]string{frames[0].Path, frames[1].Path, frames[2].Path}, " ") {
		t.Errorf("artifact directory holds %v", files)
	}
}

// Periodic frames come every interval; a long video widens the interval so
// that they stay within half the budget.
func TestMainFramesInterval(t *testing.T) {
	t.Parallel()
	// 21 s of moving pattern, one keyframe (x264 places none elsewhere with
	// keyint 1000 and no cut to detect).
	clip := extractortest.Clip(t, "pattern.mp4", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=10:d=21",
		"-c:v", "libx264", "-g", "1000", "-pix_fmt", "yuv420p")
	o, _ := run(t, newRegistry(t, map[string]string{"VIDEO_MAIN_FRAMES_INTERVAL": "5"}), "video_main_frames", clip)
	mustSucceed(t, o)
	var got []string
	for _, f := range framesOf(t, o) {
		got = append(got, fmt.Sprintf("%.3f %s", f.Time, f.Reason))
	}
	want := "0.000 keyframe,5.000 interval,10.000 interval,15.000 interval,20.000 interval"
	if strings.Join(got, ",") != want || o.Data["interval"] != 5.0 {
		t.Errorf("frames %v interval %v, want %s", got, o.Data["interval"], want)
	}

	// A budget of 4 frames: 2 periodic ones over 21 s, every 11 s.
	o, _ = run(t, newRegistry(t, map[string]string{"VIDEO_MAIN_FRAMES_INTERVAL": "5", "VIDEO_MAIN_FRAMES_MAX": "4"}), "video_main_frames", clip)
	mustSucceed(t, o)
	got = nil
	for _, f := range framesOf(t, o) {
		got = append(got, fmt.Sprintf("%.3f %s", f.Time, f.Reason))
	}
	if strings.Join(got, ",") != "0.000 keyframe,11.000 interval" || o.Data["interval"] != 11.0 {
		t.Errorf("bounded frames %v interval %v", got, o.Data["interval"])
	}
}

// A cut 0.2 s after a periodic frame replaces it.
func TestMainFramesDropsIntervalFrameBeforeCut(t *testing.T) {
	t.Parallel()
	clip := extractortest.Clip(t, "cut.mp4",
		"-f", "lavfi", "-i", "color=red:s=160x120:r=25:d=10.2",
		"-f", "lavfi", "-i", "color=blue:s=160x120:r=25:d=1",
		"-filter_complex", "[0][1]concat=n=2:v=1:a=0", "-c:v", "libx264", "-g", "1000", "-sc_threshold", "0", "-pix_fmt", "yuv420p")
	o, dir := run(t, newRegistry(t, nil), "video_main_frames", clip)
	mustSucceed(t, o)
	var got []string
	for _, f := range framesOf(t, o) {
		got = append(got, fmt.Sprintf("%.3f %s", f.Time, f.Reason))
	}
	if strings.Join(got, ",") != "0.000 keyframe,10.200 scene" {
		t.Errorf("frames %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "frames", "000010000.jpg")); !os.IsNotExist(err) {
		t.Errorf("the dropped frame's file is left: %v", err)
	}
}

// Frames are at most 640 pixels a side, in display proportions: a PAL
// 16:9 anamorphic picture (720x576, pixels 64:45) is 640x360, a portrait
// one keeps its height within 640, a small one is not enlarged.
func TestMainFramesSize(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, nil)
	for _, c := range []struct {
		src, sar string
		w, h     int
	}{
		{"720x576", "64/45", 640, 360},
		{"1080x1920", "1", 360, 640},
		{"176x144", "1", 176, 144},
		{"1281x721", "1", 640, 360},
	} {
		clip := extractortest.Clip(t, "size.mkv", "-f", "lavfi", "-i", "testsrc=s="+c.src+":r=2:d=1",
			"-vf", "setsar="+c.sar, "-c:v", "mpeg4")
		o, _ := run(t, reg, "video_main_frames", clip)
		mustSucceed(t, o)
		if f := framesOf(t, o)[0]; f.Width != c.w || f.Height != c.h {
			t.Errorf("%s sar %s: frame %dx%d, want %dx%d", c.src, c.sar, f.Width, f.Height, c.w, c.h)
		}
	}
}

func TestPlanFrames(t *testing.T) {
	t.Parallel()
	s := frameSettings{MaxFrames: 300, Interval: 10, Threshold: 0.3, MaxDuration: 14400}
	for _, c := range []struct {
		declared                  float64
		interval, sceneGap, keyGp float64
	}{
		{60, 10, 0.5, 5},
		{0, 10, 0.5, 5},     // unknown: base spacing, the output bounds hold
		{3600, 24, 24, 24},  // an hour: 150 periodic frames, 150 scenes at most
		{86400, 96, 96, 96}, // a day declared, max_duration analysed
		{1500, 10, 10, 10},  // where widening starts
		{1501, 11, 10.0067, 10.0067},
	} {
		p := planFrames(c.declared, s)
		if p.Interval != c.interval || !near(p.SceneGap, c.sceneGap, 0.001) || !near(p.KeyGap, c.keyGp, 0.001) ||
			p.PerOutput != 152 || p.Limit != 14400 {
			t.Errorf("%v s: %+v", c.declared, p)
		}
		// Whatever the duration, the frames fit the budget: periodic ones
		// within half, scene and keyframe ones within the other half.
		if span := min(c.declared, s.MaxDuration); span > 0 && (span/p.Interval > 151 || span/p.SceneGap > 151) {
			t.Errorf("%v s: over budget %+v", c.declared, p)
		}
	}
}

func TestKeepFrames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mk := func(ms int64, reason string) frame {
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.jpg", reason, ms))
		os.WriteFile(p, nil, 0o644)
		return frame{ms: ms, reason: reason, file: p}
	}
	frames := []frame{mk(0, "keyframe"), mk(10000, "interval"), mk(10300, "scene"), mk(20000, "interval"),
		mk(20499, "keyframe"), mk(30000, "scene"), mk(30500, "interval"), mk(40000, "keyframe")}
	got := keepFrames(frames, 100)
	var s []string
	for _, f := range got {
		s = append(s, fmt.Sprintf("%d %s", f.ms, f.reason))
	}
	if strings.Join(s, ",") != "0 keyframe,10300 scene,20499 keyframe,30000 scene,30500 interval,40000 keyframe" {
		t.Errorf("kept %v", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "interval-10000.jpg")); !os.IsNotExist(err) {
		t.Error("dropped frame file left")
	}
	// Over the budget: scene changes first, then periodic frames.
	got = keepFrames(got, 3)
	s = nil
	for _, f := range got {
		s = append(s, fmt.Sprintf("%d %s", f.ms, f.reason))
	}
	if strings.Join(s, ",") != "10300 scene,30000 scene,30500 interval" {
		t.Errorf("bounded %v", s)
	}
}

func TestCheckExtent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		declared, decoded, limit float64
		err                      string
	}{
		{6, 5.5, 100, ""},
		{6, 3, 100, "truncated"},
		{600, 590, 100000, ""}, // within 20 %
		{600, 400, 100000, "truncated"},
		{0, 50, 100, ""}, // unknown length, ended
		{0, 100.2, 100, "declares no duration"},
		{2, 100.2, 100, "although it declares 2 s"},
		{500, 100.5, 100, ""}, // honestly long: its first 100 s
		{500, 99.5, 100, ""},
	} {
		err := checkExtent(c.declared, c.decoded, c.limit)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
