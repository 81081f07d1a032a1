package images

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// Fuzz limits: small, so that every input costs little to decode.
const (
	fuzzMaxPixels = 1 << 20
	fuzzMaxSide   = 64
)

// FuzzLoad feeds any bytes to Load's own path for the formats Go decodes
// (JPEG, PNG, GIF, WebP: sniff, DecodeConfig, the pixel limit, the EXIF
// orientation, the decode, the fit): a picture within its bounds or a
// deterministic error, never a panic, and never a picture the limit
// should have refused. Other formats go to ffmpeg, not fuzzed here.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"orientation_1.jpg", "orientation_6.jpg", "goexif-has-lens-info.jpg",
		"video-001.progressive.truncated.jpeg", "tux.png", "video-001.gif", "blue-purple-pink.lossy.webp"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(pngHeader(60000, 60000))
	f.Add(floodJPEG(f, 60000, 60000))
	l := NewLoader(nil, fuzzMaxPixels)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 0 && sniff(b[:min(len(b), 16)]) == "" {
			return // ffmpeg's
		}
		pic, err := l.load(context.Background(), bytes.NewReader(b), "", fuzzMaxSide)
		if err != nil {
			if extractors.IsTransient(err) {
				t.Fatalf("transient error on content: %v", err)
			}
			return
		}
		checkPicture(t, pic)
	})
}

func checkPicture(t *testing.T, pic *Picture) {
	t.Helper()
	if pic.Width <= 0 || pic.Height <= 0 || int64(pic.Width)*int64(pic.Height) > fuzzMaxPixels {
		t.Fatalf("decoded a %dx%d picture (limit %d pixels)", pic.Width, pic.Height, fuzzMaxPixels)
	}
	if pic.Orientation < 1 || pic.Orientation > 8 || pic.Decoder != "go" {
		t.Fatalf("orientation %d, decoder %q", pic.Orientation, pic.Decoder)
	}
	b := pic.Image.Bounds()
	if b.Min.X != 0 || b.Min.Y != 0 || b.Dx() < 1 || b.Dy() < 1 || b.Dx() > fuzzMaxSide || b.Dy() > fuzzMaxSide {
		t.Fatalf("image bounds %v, long side at most %d", b, fuzzMaxSide)
	}
}

// The seeds decode: the fuzzer starts from real pictures, and Load on
// their files agrees with load on their bytes.
func TestLoadSeeds(t *testing.T) {
	t.Parallel()
	l := NewLoader(nil, fuzzMaxPixels)
	for _, name := range []string{"orientation_6.jpg", "tux.png", "video-001.gif", "blue-purple-pink.lossy.webp"} {
		p := filepath.Join("testdata", name)
		pic, err := l.Load(context.Background(), p, fuzzMaxSide)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkPicture(t, pic)
		b, _ := os.ReadFile(p)
		again, err := l.load(context.Background(), bytes.NewReader(b), p, fuzzMaxSide)
		if err != nil || again.Width != pic.Width || again.Height != pic.Height || again.Orientation != pic.Orientation ||
			again.Image.Bounds() != pic.Image.Bounds() {
			t.Errorf("%s: load of the bytes %+v %v, Load of the file %+v", name, again, err, pic)
		}
	}
}
