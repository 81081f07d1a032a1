package ocr

import (
	"errors"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// The conformance suite over the package's extractors, on real pictures,
// a real PDF and a real video of the shared testdata, and a picture with
// known text. Two pictures per item at most keep it quick: each extractor
// reads the video on its own here.
func TestSuite(t *testing.T) {
	t.Parallel()
	text := picture(t, "words.png", "HARBOUR LIGHTS", 480, 120, 40)
	samples := []string{"../testdata/exif.jpg", "../testdata/video-001.png", "../testdata/sample.mov", "testdata/addpage.pdf", text}
	got := extractortest.Suite(t, registry(t, map[string]string{"TESSERACT_MAX_IMAGES": "2"}), samples)
	if o := got["tesseract"]["words.png"]; o.Err != nil || o.Data["text"] != "HARBOUR LIGHTS" {
		t.Errorf("tesseract on words.png: %v %v", o.Data, o.Err)
	}
	if o := got["tesseract"]["addpage.pdf"]; !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("tesseract on a PDF without document_pages: %v", o.Err)
	}
	for _, n := range names {
		o := got[n]["sample.mov"]
		if o.Err != nil || o.Data["frames_source"] != "sampled" {
			t.Errorf("%s on sample.mov: %v %v", n, o.Data, o.Err)
		}
		if n != "tesseract" {
			if o := got[n]["exif.jpg"]; o.Err == nil {
				t.Errorf("%s on a picture: %v", n, o.Err)
			}
		}
	}
}
