package ocr

import (
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

func TestAccept(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	for _, c := range []struct {
		name, mime string
		tesseract  bool
		analyses   bool
	}{
		{"a.png", "image/png", true, false},
		{"a.jpg", "image/jpeg", true, false},
		{"a.tif", "image/tiff", true, false},
		{"a.webp", "image/webp", true, false},
		{"a.svg", "image/svg+xml", false, false},
		{"a.heic", "image/heic", false, false},
		{"a.pdf", "application/pdf", true, false},
		{"a.mp4", "video/mp4", true, true},
		{"a.mxf", "application/mxf", true, true},
		{"a.mxf", "application/octet-stream", true, true},
		{"a.png", "", true, false},
		{"a.mp3", "audio/mpeg", false, false},
		{"a.txt", "text/plain", false, false},
	} {
		for _, n := range names {
			info, _ := reg.Get(n)
			want := c.analyses
			if n == "tesseract" {
				want = c.tesseract
			}
			f := extractors.File{Name: c.name, Ext: c.name[2:], MIME: c.mime, Size: 1}
			if got := info.Accept(f); got != want {
				t.Errorf("%s accepts %s (%s): %v, want %v", n, c.name, c.mime, got, want)
			}
		}
	}
}
