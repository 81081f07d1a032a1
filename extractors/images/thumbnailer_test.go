package images

import (
	"bytes"

	"encoding/binary"

	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// The eight EXIF orientations of imaging's test files all give the
// upright picture of orientation_0.jpg (an "F" stored turned and mirrored
// every way).
func TestThumbnailOrientation(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	want := decodeFile(t, "testdata/orientation_0.jpg")
	for o := 1; o <= 8; o++ {
		name := fmt.Sprintf("orientation_%d.jpg", o)
		out, dir := run(t, reg, "thumbnailer", filepath.Join("testdata", name), "image/jpeg")
		if out.Err != nil {
			t.Fatalf("%s: %v", name, out.Err)
		}
		if got := lookup(out.Data, "source.orientation"); got != o {
			t.Errorf("%s: orientation %v", name, got)
		}
		got := decodeFile(t, filepath.Join(dir, "thumb_320.jpg"))
		if got.Bounds().Size() != want.Bounds().Size() {
			t.Fatalf("%s: thumbnail %v, want %v", name, got.Bounds().Size(), want.Bounds().Size())
		}
		if d := meanDiff(got, want); d > 12 {
			t.Errorf("%s: differs from the upright picture by %.1f on average", name, d)
		}
	}
}

// Formats decoded by Go and by ffmpeg; sizes read with the bare tools
// (exiftool -ImageSize, ffprobe) by hand.
func TestThumbnailFormats(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	for _, c := range []struct {
		file, mime, decoder string
		w, h                int
		thumbs              string
	}{
		{"goexif-sample1.jpg", "image/jpeg", "go", 500, 375, "[320x240 500x375]"},
		{"tux.png", "image/png", "go", 386, 395, "[312x320 386x395]"},
		{"video-001.gif", "image/gif", "go", 150, 103, "[150x103]"},
		{"blue-purple-pink.lossy.webp", "image/webp", "go", 150, 100, "[150x100]"},
		{"video-001.tiff", "image/tiff", "ffmpeg", 150, 103, "[150x103]"},
		{"yellow_rose-small.bmp", "image/bmp", "ffmpeg", 16, 12, "[16x12]"},
	} {
		o, dir := run(t, reg, "thumbnailer", filepath.Join("testdata", c.file), c.mime)
		if o.Err != nil {
			t.Errorf("%s: %v", c.file, o.Err)
			continue
		}
		if lookup(o.Data, "source.decoder") != c.decoder || lookup(o.Data, "source.width") != c.w || lookup(o.Data, "source.height") != c.h {
			t.Errorf("%s: source %v", c.file, o.Data["source"])
		}
		var sizes []string
		for _, a := range o.Artifacts {
			img := decodeFile(t, filepath.Join(dir, a.Path))
			if img.Bounds().Dx() != a.Width || img.Bounds().Dy() != a.Height {
				t.Errorf("%s: %s is %v, recorded %dx%d", c.file, a.Path, img.Bounds().Size(), a.Width, a.Height)
			}
			sizes = append(sizes, fmt.Sprintf("%dx%d", a.Width, a.Height))
		}
		if fmt.Sprint(sizes) != c.thumbs {
			t.Errorf("%s: thumbnails %v, want %s", c.file, sizes, c.thumbs)
		}
		if o.Artifacts[0].Kind != "thumbnail" || lookup(o.Data, "thumbnail.path") != o.Artifacts[0].Path ||
			lookup(o.Data, "thumbnail.type") != "image" {
			t.Errorf("%s: main thumbnail %v %v", c.file, o.Artifacts[0], o.Data["thumbnail"])
		}
	}
	// Transparency is laid over white: the corner of tux is white.
	_, dir := run(t, reg, "thumbnailer", "testdata/tux.png", "image/png")
	r, g, b, _ := decodeFile(t, filepath.Join(dir, "thumb_320.jpg")).At(1, 1).RGBA()
	if r>>8 < 240 || g>>8 < 240 || b>>8 < 240 {
		t.Errorf("transparent corner is %d,%d,%d", r>>8, g>>8, b>>8)
	}
}

// A video opening on a black second: the thumbnail is not black, and the
// sprite maps time to tiles (tile 0 black, the others not).
func TestThumbnailVideo(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "clip.mp4")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "color=c=black:s=320x240:r=25:d=1", "-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=4",
		"-filter_complex", "[0:v][1:v]concat=n=2:v=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", p)
	reg := registry(t, nil)
	o, dir := run(t, reg, "thumbnailer", p, "video/mp4")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	thumb := decodeFile(t, filepath.Join(dir, "thumb_320.jpg"))
	if l := meanLuma(Fit(thumb, 320)); l < darkLuma {
		t.Errorf("thumbnail luma %.1f: a black frame", l)
	}
	if ft, _ := o.Data["frame_time"].(float64); ft < 0.4 {
		t.Errorf("frame time %v: the black start", ft)
	}
	sp, _ := o.Data["sprite"].(map[string]any)
	if sp == nil {
		t.Fatalf("no sprite: %v", o.Data)
	}
	// 5 s at one tile a second: tiles at 0, 1, 2, 3, 4 s.
	want := map[string]any{"count": 5, "columns": 5, "rows": 1, "tile_width": 160, "tile_height": 120, "interval": 1.0,
		"width": 800, "height": 120, "type": "sprite", "path": "sprite.jpg"}
	for k, v := range want {
		if sp[k] != v {
			t.Errorf("sprite %s = %v, want %v", k, sp[k], v)
		}
	}
	sheet := Fit(decodeFile(t, filepath.Join(dir, "sprite.jpg")), 10000)
	for k := range 5 {
		tile := sheet.SubImage(image.Rect(k*160, 0, (k+1)*160, 120)).(*image.RGBA)
		l := meanLuma(Fit(tile, 160))
		if (k == 0) != (l < darkLuma) {
			t.Errorf("tile %d (%d s): luma %.1f", k, k, l)
		}
	}
	kinds := map[string]bool{}
	for _, a := range o.Artifacts {
		kinds[a.Kind] = true
	}
	if !kinds["thumbnail"] || !kinds["sprite"] {
		t.Errorf("artifacts %v", o.Artifacts)
	}
}

// A long video: tiles further apart (key frames only), at most 100.
func TestThumbnailLongVideoSprite(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "long.mp4")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=s=64x48:r=2:d=250", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "4", p)
	o, _ := run(t, registry(t, nil), "thumbnailer", p, "video/mp4")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	sp := o.Data["sprite"].(map[string]any)
	// 250 s, 100 tiles at most: a tile every 3 s, 84 tiles (0..249 s).
	if sp["interval"] != 3.0 || sp["columns"] != 10 || sp["rows"] != 9 || sp["count"].(int) < 83 || sp["count"].(int) > 84 {
		t.Errorf("sprite %v", sp)
	}
}

func TestThumbnailRealVideo(t *testing.T) {
	t.Parallel()
	o, _ := run(t, registry(t, nil), "thumbnailer", "testdata/sample.mov", "video/quicktime")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	// ffprobe: h264 560x320, 5.53 s.
	if lookup(o.Data, "source.format") != "h264" || lookup(o.Data, "source.width") != 560 || lookup(o.Data, "thumbnail.width") != 320 ||
		lookup(o.Data, "thumbnail.height") != 182 || lookup(o.Data, "sprite.count") != 6 {
		t.Errorf("data %v", o.Data)
	}
}

// Pixel floods (headers declaring 60000 x 60000), truncated and empty
// files are recorded errors, decided before any large allocation: each
// one's run allocates at most hostileAlloc (a 60000 x 60000 flood decoded
// would take 14 GB, a 15000 x 15000 one 900 MB).
//
// Not parallel: TotalAlloc counts the whole process, and the package's
// parallel tests wait until every sequential test is done (go test's
// rule), so each reading is this test's one run alone. Under t.Parallel it
// counted the other tests' decodes too (259 MiB once under make test).
func TestThumbnailHostile(t *testing.T) {
	reg := registry(t, nil)
	dir := t.TempDir()
	files := map[string]string{}
	write := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		files[name] = p
	}
	write("flood.png", pngHeader(60000, 60000))
	write("flood.jpg", floodJPEG(t, 60000, 60000))
	write("flood.tiff", floodTIFF(t, 60000, 60000))
	write("flood15k.tiff", floodTIFF(t, 15000, 15000))
	sample, _ := os.ReadFile("testdata/goexif-sample1.jpg")
	write("truncated.jpg", sample[:len(sample)/2])
	write("empty.jpg", nil)
	const hostileAlloc = 16 << 20
	for name, want := range map[string]string{
		"flood.png": "over the pixel limit", "flood.jpg": "over the pixel limit", "flood.tiff": "picture size not readable", "flood15k.tiff": "over the pixel limit",
		"truncated.jpg": "decode jpeg", "empty.jpg": "empty file",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		o, _ := run(t, reg, "thumbnailer", files[name], "image/"+strings.TrimPrefix(filepath.Ext(name), "."))
		runtime.ReadMemStats(&after)
		if o.Err == nil || !strings.Contains(o.Err.Error(), want) || extractors.IsTransient(o.Err) {
			t.Errorf("%s: err = %v, want a deterministic %q", name, o.Err, want)
		}
		grew := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d KiB allocated", name, grew>>10)
		if grew > hostileAlloc {
			t.Errorf("%s allocated %d MiB, want at most %d", name, grew>>20, hostileAlloc>>20)
		}
	}
}

func TestFitSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ w, h, side, ww, wh int }{
		{4000, 3000, 320, 320, 240}, {3000, 4000, 1280, 960, 1280}, {100, 50, 320, 100, 50}, {10000, 1, 320, 320, 1},
	} {
		if w, h := FitSize(c.w, c.h, c.side); w != c.ww || h != c.wh {
			t.Errorf("FitSize(%d, %d, %d) = %d, %d", c.w, c.h, c.side, w, h)
		}
	}
	for d, want := range map[float64]float64{0.5: 1, 5.5: 1, 100: 1, 101: 2, 250: 3, 36000: 360} {
		if got := SpriteInterval(d); got != want {
			t.Errorf("SpriteInterval(%v) = %v, want %v", d, got, want)
		}
	}
}

// Suite: the framework's checks over both extractors on every sample.
func TestSuite(t *testing.T) {
	t.Parallel()
	samples, _ := filepath.Glob("testdata/*.*")
	got := extractortest.Suite(t, registry(t, nil), samples)
	if o := got["exiv2"]["goexif-sample1.jpg"]; o.Err != nil || lookup(o.Data, "camera.model") != "NIKON D2H" {
		t.Errorf("exiv2 on sample1: %v %v", o.Data, o.Err)
	}
	if o := got["thumbnailer"]["sample.mov"]; o.Err != nil || o.Data["sprite"] == nil {
		t.Errorf("thumbnailer on sample.mov: %v %v", o.Data, o.Err)
	}
}

func FuzzJPEGOrientation(f *testing.F) {
	for _, n := range []string{"orientation_6.jpg", "goexif-has-lens-info.jpg", "goexif-sample1.jpg"} {
		b, _ := os.ReadFile("testdata/" + n)
		f.Add(b[:min(len(b), 512)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := JPEGOrientation(bytes.NewReader(b)); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		if o := TIFFOrientation(b); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

func FuzzDecodePNGs(f *testing.F) {
	var two bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	png.Encode(&two, img)
	png.Encode(&two, img)
	f.Add(two.Bytes())
	f.Add(pngHeader(60000, 60000))
	f.Fuzz(func(t *testing.T, b []byte) {
		tiles, err := DecodePNGs(b, 10, 64, 64)
		if err != nil {
			return
		}
		for _, tile := range tiles {
			if tile.Bounds().Dx() > 64 || tile.Bounds().Dy() > 64 {
				t.Fatalf("tile %v", tile.Bounds())
			}
		}
		if len(tiles) > 0 {
			Tile(tiles, 3)
		}
	})
}

func FuzzParseProbeSize(f *testing.F) {
	f.Add([]byte(`{"streams":[{"codec_name":"tiff","width":150,"height":103}]}`))
	f.Add([]byte(`{"streams":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseProbeSize(b)
		if err == nil && (s.Width <= 0 || s.Height <= 0) {
			t.Fatalf("size %+v", s)
		}
	})
}

func decodeFile(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return img
}

// meanDiff is the mean absolute difference of the RGB channels, 0-255.
func meanDiff(a, b image.Image) float64 {
	var sum float64
	n := 0
	for y := range a.Bounds().Dy() {
		for x := range a.Bounds().Dx() {
			r1, g1, b1, _ := a.At(a.Bounds().Min.X+x, a.Bounds().Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(b.Bounds().Min.X+x, b.Bounds().Min.Y+y).RGBA()
			for _, d := range []int{int(r1>>8) - int(r2>>8), int(g1>>8) - int(g2>>8), int(b1>>8) - int(b2>>8)} {
				sum += float64(max(d, -d))
				n++
			}
		}
	}
	return sum / float64(n)
}

// pngHeader is a PNG signature and an IHDR chunk declaring w x h RGBA
// pixels, and nothing else.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits, RGBA
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// floodJPEG is a real JPEG whose frame header (SOF0) is made to declare
// w x h pixels.
func floodJPEG(t testing.TB, w, h uint16) []byte {
	b, err := os.ReadFile("testdata/goexif-sample1.jpg")
	if err != nil {
		t.Fatal(err)
	}
	// The last frame header: the first may be the EXIF thumbnail's.
	i := bytes.LastIndex(b, []byte{0xFF, 0xC0})
	if i < 0 {
		t.Fatal("no SOF0")
	}
	binary.BigEndian.PutUint16(b[i+5:], h)
	binary.BigEndian.PutUint16(b[i+7:], w)
	return b
}

// floodTIFF is a real TIFF whose ImageWidth and ImageLength are made w x h.
func floodTIFF(t testing.TB, w, h uint16) []byte {
	b, err := os.ReadFile("testdata/video-001.tiff")
	if err != nil || string(b[:4]) != "II*\x00" {
		t.Fatalf("not a little-endian TIFF: %v", err)
	}
	ifd := binary.LittleEndian.Uint32(b[4:])
	n := int(binary.LittleEndian.Uint16(b[ifd:]))
	for i := range n {
		e := int(ifd) + 2 + 12*i
		switch binary.LittleEndian.Uint16(b[e:]) {
		case 256:
			binary.LittleEndian.PutUint32(b[e+8:], uint32(w))
		case 257:
			binary.LittleEndian.PutUint32(b[e+8:], uint32(h))
		}
	}
	return b
}

// An anamorphic video (160x120 stored, pixels twice as wide as high) is
// shown 320x120: so are its thumbnail and its sprite tiles.
func TestThumbnailAnamorphicVideo(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "wide.mp4")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=s=160x120:r=10:d=2", "-vf", "setsar=2", "-c:v", "libx264", "-preset", "ultrafast",
		"-pix_fmt", "yuv420p", p)
	o, _ := run(t, registry(t, nil), "thumbnailer", p, "video/mp4")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if lookup(o.Data, "thumbnail.width") != 320 || lookup(o.Data, "thumbnail.height") != 120 ||
		lookup(o.Data, "sprite.tile_width") != 160 || lookup(o.Data, "sprite.tile_height") != 60 {
		t.Errorf("data %v", o.Data)
	}
}
