package video

import (
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// familyNames are the extractors of this package.
var familyNames = []string{"video_main_frames", "video_previews", "audio_previews"}

// newRegistry is a registry of this family's extractors (as registered in
// Default by init) with the given settings by environment variable.
func newRegistry(t *testing.T, env map[string]string) *extractors.Registry {
	return extractortest.Registry(t, env, familyNames...)
}

// run runs one extractor of reg on the file at path, with its own artifact
// directory, and returns the outcome and that directory (the extractor's).
func run(t *testing.T, reg *extractors.Registry, name, path string) (extractors.Outcome, string) {
	t.Helper()
	in := extractortest.Input(t, path)
	return extractortest.Run(t, reg, name, in), filepath.Join(in.ArtifactDir, name)
}

// mustSucceed fails the test on an outcome's error.
func mustSucceed(t *testing.T, o extractors.Outcome) {
	t.Helper()
	if o.Err != nil {
		t.Fatalf("%s: %v", o.Name, o.Err)
	}
}

// framesOf decodes the frames list of video_main_frames' data.
type frameData struct {
	Time          float64
	Path, Reason  string
	Width, Height int
	Score         float64
}

func framesOf(t *testing.T, o extractors.Outcome) []frameData {
	t.Helper()
	list, ok := o.Data["frames"].([]any)
	if !ok {
		t.Fatalf("frames: %T", o.Data["frames"])
	}
	out := make([]frameData, len(list))
	for i, v := range list {
		m := v.(map[string]any)
		out[i] = frameData{Time: m["time"].(float64), Path: m["path"].(string), Reason: m["reason"].(string),
			Width: m["width"].(int), Height: m["height"].(int), Score: m["score"].(float64)}
	}
	return out
}

// readJPEG decodes a frame.
func readJPEG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// meanRGB is the average colour of img, 0..255 a channel.
func meanRGB(img image.Image) (r, g, b float64) {
	bounds := img.Bounds()
	n := float64(bounds.Dx() * bounds.Dy())
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			r, g, b = r+float64(cr>>8), g+float64(cg>>8), b+float64(cb>>8)
		}
	}
	return r / n, g / n, b / n
}

// near reports whether a and b differ by at most tol.
func near(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }
