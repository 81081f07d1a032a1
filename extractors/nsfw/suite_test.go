package nsfw

import (
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// The contract of every extractor (cancelled context, empty and garbage
// files under many names, declared fields) over the pictures of testdata
// and a generated video.
func TestSuite(t *testing.T) {
	requireSidecar(t)
	samples := []string{"testdata/video-001.png", "testdata/video-001.tiff", "testdata/text-x-script.png",
		"testdata/goexif-sample1.jpg", slideshow(t)}
	res := extractortest.Suite(t, shared, samples)
	for name, o := range res["nsfw"] {
		if o.Err != nil {
			t.Errorf("%s: %v", name, o.Err)
		}
	}
	if o := res["nsfw"]["slideshow.mp4"]; o.Err == nil && len(o.Segments) != 6 {
		t.Errorf("slideshow: %d segments", len(o.Segments))
	}
}
