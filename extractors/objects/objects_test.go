package objects

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/vision"
)

func registry(t testing.TB, env map[string]string) *extractors.Registry {
	t.Helper()
	all := map[string]string{"VISION_SIDECAR_DIR": extractortest.VisionDir(t)}
	for k, v := range env {
		all[k] = v
	}
	return extractortest.Registry(t, all, Name)
}

func run(t testing.TB, reg *extractors.Registry, path, mime string, prior map[string]json.RawMessage, root string) extractors.Outcome {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	in := extractortest.Input(t, abs)
	in.MIME, in.Prior = mime, prior
	if root != "" {
		in.ArtifactDir = root
	}
	return extractortest.Run(t, reg, Name, in)
}

// labelled are pictures whose objects (of COCO's classes) were counted by
// hand; their origins and licences are in testdata/README.md.
var labelled = []struct {
	file  string
	truth map[string]int
}{
	{"../faces/testdata/astronaut.png", map[string]int{"person": 1}},
	{"testdata/chelsea.jpg", map[string]int{"cat": 1}},
	{"testdata/coffee.jpg", map[string]int{"cup": 1, "spoon": 1, "dining table": 1}},
	{"testdata/facedetect-two.jpg", map[string]int{"person": 2}},
	{"testdata/rocket.jpg", map[string]int{}},
	{"testdata/samples-woman.jpg", map[string]int{"person": 1}},
	{"../faces/testdata/samples-man-dinner.jpg", map[string]int{"person": 1, "dining table": 1, "cup": 1}},
	{"testdata/samples-woman-standing.jpg", map[string]int{"person": 1}},
	{"testdata/samples-woman-wall.jpg", map[string]int{"person": 1}},
	{"testdata/samples-woman-stool.jpg", map[string]int{"person": 1, "chair": 1}},
	{"testdata/samples-three.jpg", map[string]int{"person": 3}},
	{"../nsfw/testdata/video-001.png", map[string]int{"person": 2, "laptop": 1}},
}

// TestConfidenceFloor measures precision and recall of the objects over
// the hand-labelled pictures at several floors (the figures of
// docs/vision.md) and holds the default floor to what was measured: an
// object counts as right while its name has not been found more often
// than the picture holds it.
func TestConfidenceFloor(t *testing.T) {
	t.Parallel()
	reg := registry(t, map[string]string{"OBJECTS_MIN_CONFIDENCE": "0.1"})
	type det struct {
		name string
		conf float64
	}
	var all [][]det
	present := 0
	for _, l := range labelled {
		o := run(t, reg, l.file, "image/jpeg", nil, "")
		if o.Err != nil {
			t.Fatalf("%s: %v", l.file, o.Err)
		}
		var ds []det
		for _, x := range o.Data["labels"].([]any) {
			m := x.(map[string]any)
			ds = append(ds, det{m["name"].(string), m["confidence"].(float64)})
		}
		all = append(all, ds)
		for _, n := range l.truth {
			present += n
		}
	}
	measure := func(floor float64) (precision, recall float64) {
		kept, right := 0, 0
		for i, ds := range all {
			seen := map[string]int{}
			sort.Slice(ds, func(a, b int) bool { return ds[a].conf > ds[b].conf })
			for _, d := range ds {
				if d.conf < floor {
					continue
				}
				kept++
				seen[d.name]++
				if seen[d.name] <= labelled[i].truth[d.name] {
					right++
				}
			}
		}
		if kept == 0 {
			return 1, 0
		}
		return float64(right) / float64(kept), float64(right) / float64(present)
	}
	for _, floor := range []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5} {
		p, r := measure(floor)
		t.Logf("floor %.2f: precision %.2f, recall %.2f", floor, p, r)
	}
	if p, r := measure(DefaultMinConfidence); p < 0.75 || r < 0.6 {
		t.Errorf("default floor %v: precision %.2f, recall %.2f", DefaultMinConfidence, p, r)
	}
}

// Golden objects at the default floor: the laptop and the two people on
// the stage, the coffee cup, the astronaut.
func TestGoldenObjects(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	for file, want := range map[string][]string{
		"../nsfw/testdata/video-001.png":  {"person", "laptop"},
		"testdata/coffee.jpg":             {"cup"},
		"../faces/testdata/astronaut.png": {"person"},
	} {
		o := run(t, reg, file, "image/png", nil, "")
		if o.Err != nil {
			t.Fatalf("%s: %v", file, o.Err)
		}
		var names []string
		for _, n := range o.Data["names"].([]any) {
			names = append(names, n.(string))
		}
		for _, w := range want {
			if !slices.Contains(names, w) {
				t.Errorf("%s: names %v, want %s", file, names, w)
			}
		}
		if o.Data["source"] != Source || o.Data["frames"] != 1 || o.Data["frames_source"] != "image" || len(o.Segments) != 0 {
			t.Errorf("%s: data %v", file, o.Data)
		}
		for _, l := range o.Data["labels"].([]any) {
			m := l.(map[string]any)
			box := m["box"].(map[string]any)
			if m["confidence"].(float64) < DefaultMinConfidence || box["left"].(float64) < 0 || box["left"].(float64)+box["width"].(float64) > 1.0001 {
				t.Errorf("%s: label %v", file, m)
			}
		}
	}
}

// A video made of the stage picture (2 s) and the coffee (2 s), with
// video_main_frames' frames: segments at each frame's time with the
// objects seen there as tags.
func TestVideoMainFrames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "video_main_frames", "frames")
	os.MkdirAll(dir, 0o755)
	extractortest.FFmpeg(t, "-i", "../nsfw/testdata/video-001.png", "-q:v", "2", filepath.Join(dir, "a.jpg"))
	extractortest.FFmpeg(t, "-i", "testdata/coffee.jpg", filepath.Join(dir, "b.jpg"))
	prior := map[string]json.RawMessage{"video_main_frames": json.RawMessage(`{"frames":[
		{"time":0,"path":"frames/a.jpg","reason":"scene"},{"time":2.5,"path":"frames/b.jpg","reason":"scene"}]}`)}
	video := filepath.Join(t.TempDir(), "v.mp4")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=s=160x120:r=5:d=4", "-pix_fmt", "yuv420p", video)
	o := run(t, registry(t, nil), video, "video/mp4", prior, root)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["frames_source"] != "video_main_frames" || len(o.Segments) != 2 {
		t.Fatalf("data %v, segments %+v", o.Data, o.Segments)
	}
	has := func(s extractors.Segment, name string) bool {
		for _, tag := range s.Summary.Tags {
			if tag.Name == name && tag.Source == Source && tag.Confidence >= DefaultMinConfidence {
				return true
			}
		}
		return false
	}
	if o.Segments[0].Time != 0 || !has(o.Segments[0], "laptop") || o.Segments[1].Time != 2.5 || !has(o.Segments[1], "cup") {
		t.Errorf("segments %+v", o.Segments)
	}
	for _, l := range o.Data["labels"].([]any) {
		if _, ok := l.(map[string]any)["time"]; !ok {
			t.Errorf("label without time: %v", l)
		}
	}
}

// The contract of every extractor, and hostile pictures: truncated, a
// pixel flood, zero bytes, not a picture: recorded errors, the sidecar
// never asked about them.
func TestHostile(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	res := extractortest.Suite(t, reg, []string{"testdata/coffee.jpg", "../nsfw/testdata/video-001.png"})
	if o := res[Name]["coffee.jpg"]; o.Err != nil {
		t.Errorf("coffee: %v", o.Err)
	}
	dir := t.TempDir()
	whole, _ := os.ReadFile("testdata/coffee.jpg")
	files := map[string][]byte{
		"truncated.jpg": whole[:len(whole)/3],
		"empty.jpg":     nil,
		"text.jpg":      []byte(strings.Repeat("not a picture\n", 100)),
		"flood.png":     extractortest.PNGHeader(60000, 60000),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		o := run(t, reg, p, "image/jpeg", nil, "")
		if o.Err == nil && name != "truncated.jpg" {
			t.Errorf("%s: no error, data %v", name, o.Data)
		}
		if extractors.IsTransient(o.Err) {
			t.Errorf("%s: transient %v", name, o.Err)
		}
		t.Logf("%s: %v", name, o.Err)
	}
}

// Without the sidecar, objects is not available.
func TestSidecarMissing(t *testing.T) {
	t.Parallel()
	reg := registry(t, map[string]string{"VISION_SIDECAR_DIR": t.TempDir()})
	if ok, reason := reg.Available(Name); ok || !strings.Contains(reason, "vision sidecar not installed") {
		t.Errorf("available %v: %q", ok, reason)
	}
}

func TestKeep(t *testing.T) {
	t.Parallel()
	got := Keep([]vision.Object{
		{Label: "laptop", Score: 0.36, Box: [4]float64{29, 71, 83, 30}},
		{Label: "remote", Score: 0.24, Box: [4]float64{97, 56, 7, 16}},
		{Label: "", Score: 0.9, Box: [4]float64{0, 0, 10, 10}},
		{Label: "person", Score: 0.9, Box: [4]float64{-50, -50, 400, 400}},
		{Label: "ghost", Score: 0.9, Box: [4]float64{500, 500, 10, 10}},
		{Label: "weird", Score: 1.5, Box: [4]float64{0, 0, 10, 10}},
	}, 150, 100, 0.3)
	if fmt.Sprint(got) != "[{laptop 0.36 [0.1933 0.71 0.5533 0.29] <nil>} {person 0.9 [0 0 1 1] <nil>}]" {
		t.Errorf("%v", got)
	}
}
