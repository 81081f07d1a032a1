package ocr

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// pngHeader writes a PNG that declares w x h pixels of grey and holds a
// few bytes of image data: what a pixel flood looks like.
func pngHeader(t *testing.T, w, h uint32) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(data)
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, c.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit grey
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 1024))
	zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	p := filepath.Join(t.TempDir(), fmt.Sprintf("flood-%dx%d.png", w, h))
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Pixel floods, garbage named as pictures and a list of image names
// (which tesseract would read as such, and fetch URLs of) are refused
// before tesseract is started, with deterministic errors.
func TestHostilePicturesNeverReachTesseract(t *testing.T) {
	url := extractortest.NoRequestURL(t)
	log := countingTesseract(t)
	reg := registry(t, nil)
	dir := t.TempDir()
	garbage := make([]byte, 32<<10)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	files := map[string][]byte{
		"garbage.png": garbage,
		"list.png":    []byte(url + "/page.png\n" + url + "/other.tif\n"),
		"list.txt":    []byte(url + "/page.png\n"),
		"half.png":    []byte("\x89PNG\r\n\x1a\n\x00\x00"),
	}
	cases := map[string]string{}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cases[p] = "not a picture tesseract is given"
	}
	cases[pngHeader(t, 20000, 20000)] = "20000x20000 pixels is over the OCR limit"
	cases[pngHeader(t, 7000, 8000)] = "7000x8000 pixels is over the OCR limit"
	cases[pngHeader(t, 40000, 10)] = "40000x10 pixels is over the OCR limit"
	for p, want := range cases {
		in := extractortest.Input(t, p)
		in.MIME = "image/png"
		o := extractortest.Run(t, reg, "tesseract", in)
		if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), want) {
			t.Errorf("%s: %v, want a deterministic error with %q", filepath.Base(p), o.Err, want)
		}
	}
	if got := calls(t, log); len(got) != 0 {
		t.Errorf("tesseract was given %v", got)
	}
}

// manyFrames gives in the data of a video_main_frames that kept n frames,
// one small picture linked n times.
func manyFrames(t *testing.T, in *extractors.Input, n int) {
	t.Helper()
	src := picture(t, "frame.png", "EXIT", 160, 90, 24)
	dir := filepath.Join(in.ArtifactDir, "video_main_frames", "frames")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var frames []any
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("frames/%09d.png", i*100)
		if err := os.Link(src, filepath.Join(dir, filepath.Base(rel))); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, map[string]any{"time": float64(i) / 10, "path": rel, "width": 160, "height": 90, "reason": "interval", "score": 0})
	}
	raw, _ := json.Marshal(map[string]any{"count": n, "interval": 0.1, "duration": float64(n) / 10, "frames": frames})
	in.Prior = map[string]json.RawMessage{"video_main_frames": raw}
}

// A video with 1000 frames kept: the image budget bounds what is read,
// spread over the whole video.
func TestThousandFramesBoundedByBudget(t *testing.T) {
	t.Parallel()
	reg := registry(t, map[string]string{"TESSERACT_MAX_IMAGES": "12"})
	in := extractortest.Input(t, "../testdata/sample.mov")
	manyFrames(t, in, 1000)
	o := extractortest.Run(t, reg, "tesseract", in)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	frames, _ := o.Data["frames"].([]any)
	if o.Data["images"] != 12 || o.Data["images_skipped"] != 988 || len(frames) != 12 || len(o.Segments) != 12 {
		t.Fatalf("data %v", o.Data)
	}
	if first, last := frames[0].(map[string]any)["time"], frames[11].(map[string]any)["time"]; first != 0.0 || last != 99.9 {
		t.Errorf("frames from %v to %v, want the whole video", first, last)
	}
	if o.Segments[0].Summary.OCR[0].Text != "EXIT" {
		t.Errorf("segment %+v", o.Segments[0])
	}
}

// A budget of 1000 frames is bounded by the extractor's time limit: the
// reading stops (its tesseracts killed) with a deterministic time-limit
// error.
func TestThousandFramesBoundedByTimeLimit(t *testing.T) {
	t.Parallel()
	reg := registry(t, map[string]string{"TESSERACT_MAX_IMAGES": "1000"})
	info, _ := reg.Get("tesseract")
	info.Timeout = 2 * time.Second
	short := extractors.NewRegistry()
	short.MustRegister(info)
	short.Configure(extractors.Config{Runner: extractors.NewRunner(2), Lookup: func(k string) (string, bool) {
		if k == "TESSERACT_MAX_IMAGES" {
			return "1000", true
		}
		return "", false
	}})
	in := extractortest.Input(t, "../testdata/sample.mov")
	in.MIME = "video/quicktime"
	manyFrames(t, in, 1000)
	// RunOne returns by the time limit (and a grace it gives an extractor
	// to stop): the error says the limit ended the reading, which no
	// clock read beside parallel tests would say better.
	o := extractors.RunOne(context.Background(), short, "tesseract", in, 0)
	if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), "exceeded its time limit of 2s") {
		t.Fatalf("1000 frames in 2 s: %v", o.Err)
	}
}
