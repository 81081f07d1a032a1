package ocr

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// near checks got against want within tol (a frame interval: times found
// on sampled frames are exact to it).
func near(t *testing.T, what string, got any, want, tol float64) {
	t.Helper()
	g, ok := got.(float64)
	if !ok || math.Abs(g-want) > tol+1e-9 {
		t.Errorf("%s = %v, want %v within %v", what, got, want, tol)
	}
}

func rangesOf(t *testing.T, v any) [][2]float64 {
	t.Helper()
	list, _ := v.([]any)
	var out [][2]float64
	for _, r := range list {
		m := r.(map[string]any)
		out = append(out, [2]float64{m["start"].(float64), m["end"].(float64)})
	}
	return out
}

// The programme clip (helpers_test.go) read by all six in one harvest,
// without video_main_frames: frames sampled every 2 s, each read once
// (the analyses read tesseract's frames), slates, credits, texted and
// textless ranges at the right times within one interval.
func TestProgrammeClip(t *testing.T) {
	clip := programmeClip(t)
	log := countingTesseract(t)
	reg := registry(t, nil)
	outs := extractortest.Harvest(t, reg, extractortest.Input(t, clip), names...)
	for _, n := range names {
		if outs[n].Err != nil {
			t.Fatalf("%s: %v", n, outs[n].Err)
		}
	}
	if got := calls(t, log); len(got) != 12 {
		t.Errorf("tesseract ran %d times for 12 frames", len(got))
	}
	const iv = 2.0

	ts := outs["tesseract"]
	if ts.Data["frames_source"] != "sampled" || ts.Data["frame_interval"] != iv || ts.Data["source"] != "video_frames" ||
		ts.Data["analysed_duration"] != clipEnd || ts.Data["images"] != 12 {
		t.Errorf("tesseract data %v", ts.Data)
	}
	text, _ := ts.Data["text"].(string)
	wantWords(t, "tesseract", text, []string{"TITLE: HARBOUR", "SCENE 12 TAKE 3", "ANNA BERG", "LENA HOLM", "PETER NOLAN"})
	var segTimes []float64
	for _, s := range ts.Segments {
		segTimes = append(segTimes, s.Time)
		if len(s.Summary.OCR) != 1 || s.Summary.OCR[0].Source != "tesseract" || s.Summary.OCR[0].Text == "" {
			t.Errorf("segment %+v", s)
		}
		if s.Time >= slateEnd+iv && s.Time < programmeEnd {
			t.Errorf("segment with text in the textless programme at %v: %q", s.Time, s.Summary.OCR[0].Text)
		}
	}
	if len(ts.Segments) == 0 || ts.Segments[0].Time != 0 || !strings.Contains(ts.Segments[0].Summary.OCR[0].Text, "HARBOUR") {
		t.Errorf("segments at %v", segTimes)
	}

	sl := outs["slates"].Data
	list, _ := sl["slates"].([]any)
	if sl["count"] != 1 || len(list) != 1 {
		t.Fatalf("slates %v", sl)
	}
	s0 := list[0].(map[string]any)
	near(t, "slate start", s0["start"], 0, iv)
	near(t, "slate end", s0["end"], slateEnd, iv)
	if s0["position"] != "head" || !strings.Contains(s0["text"].(string), "SCENE 12 TAKE 3") ||
		!slices.Contains(s0["keywords"].([]string), "take") {
		t.Errorf("slate %v", s0)
	}

	ds := outs["vendor_digital_slates"].Data
	for k, want := range map[string]any{"title": "HARBOUR", "scene": "12", "take": "3", "date": "2024-05-17",
		"date_iso": "2024-05-17", "duration": "30s", "duration_seconds": 30.0, "count": 1} {
		if ds[k] != want {
			t.Errorf("digital slate %s = %v, want %v", k, ds[k], want)
		}
	}

	cr := outs["credits"].Data
	if cr["found"] != true || cr["count"] != 1 {
		t.Fatalf("credits %v", cr)
	}
	near(t, "credits start", cr["start"], programmeEnd, iv)
	near(t, "credits end", cr["end"], clipEnd, iv)
	wantWords(t, "credits", cr["text"].(string), []string{"Directed by", "ANNA BERG", "JON SMITH", "PETER NOLAN", "MARIA LUND"})

	texted := rangesOf(t, outs["vendor_texted"].Data["ranges"])
	textless := rangesOf(t, outs["vendor_textless"].Data["ranges"])
	if len(texted) != 2 || len(textless) != 1 {
		t.Fatalf("texted %v, textless %v", texted, textless)
	}
	for i, want := range [][2]float64{{0, slateEnd}, {programmeEnd, clipEnd}} {
		near(t, fmt.Sprintf("texted %d start", i), texted[i][0], want[0], iv)
		near(t, fmt.Sprintf("texted %d end", i), texted[i][1], want[1], iv)
	}
	near(t, "textless start", textless[0][0], slateEnd, iv)
	near(t, "textless end", textless[0][1], programmeEnd, iv)
	tl := outs["vendor_textless"].Data
	if tl["total_duration"].(float64)+outs["vendor_texted"].Data["total_duration"].(float64) != clipEnd {
		t.Errorf("texted and textless do not add up to the clip: %v %v", tl, outs["vendor_texted"].Data)
	}
}

// countingTesseract puts a tesseract first on PATH that logs each picture
// it is given to a file before running the real one; it returns the log.
// Not for parallel tests (PATH is the process's).
func countingTesseract(t *testing.T) string {
	t.Helper()
	real, err := execLookPath("tesseract")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	script := fmt.Sprintf("#!/bin/sh\n[ \"$1\" = --list-langs ] || echo \"$1\" >> %s\nexec %s \"$@\"\n", log, real)
	if err := os.WriteFile(filepath.Join(dir, "tesseract"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(log)
	return strings.Fields(string(b))
}

// Without tesseract in the harvest, the analyses share one reading of the
// frames: each frame is still read once.
func TestOneReadingPerHarvest(t *testing.T) {
	clip := programmeClip(t)
	log := countingTesseract(t)
	reg := registry(t, nil)
	outs := extractortest.Harvest(t, reg, extractortest.Input(t, clip), names[1:]...)
	for _, n := range names[1:] {
		if outs[n].Err != nil {
			t.Fatalf("%s: %v", n, outs[n].Err)
		}
	}
	if got := calls(t, log); len(got) != 12 {
		t.Errorf("tesseract ran %d times for 12 frames", len(got))
	}
	if outs["slates"].Data["count"] != 1 || outs["credits"].Data["found"] != true {
		t.Errorf("analyses on their own reading: %v %v", outs["slates"].Data, outs["credits"].Data)
	}
}

// With video_main_frames in the harvest, its frames are read (at its
// times, so that the segments merge with its own) and no frame is decoded
// again.
func TestReadsVideoMainFrames(t *testing.T) {
	t.Parallel()
	clip := programmeClip(t)
	reg := registry(t, nil)
	in := extractortest.Input(t, clip)
	dir := filepath.Join(in.ArtifactDir, "video_main_frames")
	if err := os.MkdirAll(filepath.Join(dir, "frames"), 0o755); err != nil {
		t.Fatal(err)
	}
	times := []float64{0, 4.52, 10, 16.04, 20}
	var frames []any
	for _, tm := range times {
		rel := fmt.Sprintf("frames/%09d.jpg", int64(tm*1000))
		extractortest.FFmpeg(t, "-ss", fmt.Sprint(tm), "-i", clip, "-frames:v", "1", "-q:v", "3", filepath.Join(dir, rel))
		frames = append(frames, map[string]any{"time": tm, "path": rel, "width": 640, "height": 360, "reason": "interval", "score": 0})
	}
	raw, _ := json.Marshal(map[string]any{"count": len(frames), "interval": 10, "duration": clipEnd, "frames": frames})
	in.Prior = map[string]json.RawMessage{"video_main_frames": raw}
	outs := extractortest.Harvest(t, reg, in, "tesseract", "slates", "vendor_textless")
	ts := outs["tesseract"]
	if ts.Err != nil || ts.Data["frames_source"] != "video_main_frames" || ts.Data["frame_interval"] != 10.0 || ts.Data["images"] != 5 {
		t.Fatalf("tesseract %v %v", ts.Data, ts.Err)
	}
	var got []float64
	for _, s := range ts.Segments {
		got = append(got, s.Time)
	}
	if !slices.Equal(got, []float64{0, 4.52, 16.04, 20}) {
		t.Errorf("segments at %v", got)
	}
	sl := outs["slates"]
	if sl.Err != nil || sl.Data["count"] != 1 || sl.Data["frames_source"] != "video_main_frames" {
		t.Fatalf("slates %v %v", sl.Data, sl.Err)
	}
	s0 := sl.Data["slates"].([]any)[0].(map[string]any)
	if s0["start"] != 0.0 || s0["end"] != 10.0 {
		t.Errorf("slate from main frames %v", s0)
	}
	if r := rangesOf(t, outs["vendor_textless"].Data["ranges"]); len(r) != 1 || r[0] != [2]float64{10, 16.04} {
		t.Errorf("textless from main frames %v", r)
	}
}

// Paths of video_main_frames' data lead below its artifact directory only.
func TestVideoMainFramesPaths(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	in := extractortest.Input(t, "../testdata/sample.mov")
	in.Prior = map[string]json.RawMessage{"video_main_frames": json.RawMessage(
		`{"count":1,"interval":10,"duration":5,"frames":[{"time":1,"path":"../../../etc/passwd"}]}`)}
	o := extractortest.Run(t, reg, "tesseract", in)
	if o.Err == nil || !strings.Contains(o.Err.Error(), "video_main_frames data") || extractors.IsTransient(o.Err) {
		t.Errorf("path out of the artifacts: %v", o.Err)
	}
}
