package video

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// samples are the real files of testdata (see its README) and of the
// framework's testdata.
var samples = []string{"testdata/mp4.mp4", "testdata/webm.webm", "testdata/ogg.ogv", "testdata/mkv-1s.mkv",
	"testdata/complete.oga", "../testdata/pluck-pcm16.wav", "../testdata/sample.mov", "../testdata/exif.jpg"}

// The framework's suite over this family on the sample files: cancellation,
// empty and garbage input, declared fields, artifact and thumbnail files.
func TestSuite(t *testing.T) {
	t.Parallel()
	got := extractortest.Suite(t, newRegistry(t, nil), samples)
	// Which extractor handles which sample.
	for _, c := range []struct {
		name, sample string
		ok           bool
	}{
		{"video_main_frames", "mp4.mp4", true}, {"video_main_frames", "complete.oga", false},
		{"video_previews", "sample.mov", true}, {"video_previews", "pluck-pcm16.wav", false},
		{"video_previews", "webm.webm", true}, {"video_previews", "ogg.ogv", true},
		{"audio_previews", "complete.oga", true}, {"audio_previews", "pluck-pcm16.wav", true},
		{"audio_previews", "webm.webm", false},
	} {
		if o := got[c.name][c.sample]; (o.Err == nil) != c.ok {
			t.Errorf("%s on %s: %v", c.name, c.sample, o.Err)
		}
	}
	// The previews of the WebM (VP8, Vorbis) and Ogg (Theora, Vorbis)
	// samples: 560x320 like their sources (bare ffprobe), as long (5.568 s
	// and 5.547 s).
	for sample, dur := range map[string]float64{"webm.webm": 5.568, "ogg.ogv": 5.547} {
		d := got["video_previews"][sample].Data
		if d["width"] != 560 || d["height"] != 320 || d["video_codec"] != "h264" || d["audio_codec"] != "aac" ||
			!near(d["duration"].(float64), dur, 0.1) {
			t.Errorf("preview of %s: %v", sample, d)
		}
	}
}

// Golden frames of the Debian samples, sampled every 2 s. Expected values
// come from the bare tools: ffprobe -show_entries packet=pts_time,flags
// lists keyframes at 0 only (mp4, webm, mkv) or at 0, 2.133 and 4.267 (ogv,
// which the 0.5 s rule keeps out as they follow periodic frames), and no
// frame scores above 0.015 with select='gte(scene,0)',metadata=print (no
// cut). mkv-1s is 1280x720 and lasts 1 s. Each frame is the picture at its
// time: it matches what the bare ffmpeg -ss <time> -i <file> -frames:v 1
// decodes, scaled alike (within JPEG's loss), and closer to it than to the
// pictures at the other frames' times.
func TestMainFramesOfSamples(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, map[string]string{"VIDEO_MAIN_FRAMES_INTERVAL": "2"})
	for _, c := range []struct {
		file, frames string
		w, h         int
	}{
		{"mp4.mp4", "0.000 keyframe,2.000 interval,4.000 interval", 560, 320},
		{"webm.webm", "0.000 keyframe,2.000 interval,4.000 interval", 560, 320},
		{"ogg.ogv", "0.000 keyframe,2.000 interval,4.000 interval", 560, 320},
		{"mkv-1s.mkv", "0.000 keyframe", 640, 360},
	} {
		path := filepath.Join("testdata", c.file)
		o, dir := run(t, reg, "video_main_frames", path)
		mustSucceed(t, o)
		var got []string
		frames := framesOf(t, o)
		for _, f := range frames {
			got = append(got, fmt.Sprintf("%.3f %s", f.Time, f.Reason))
			if f.Width != c.w || f.Height != c.h {
				t.Errorf("%s: frame %+v, want %dx%d", c.file, f, c.w, c.h)
			}
		}
		if strings.Join(got, ",") != c.frames {
			t.Errorf("%s: frames %v, want %s", c.file, got, c.frames)
			continue
		}
		bare := make([]image.Image, len(frames))
		for i, f := range frames {
			bare[i] = bareFrame(t, path, f.Time, c.w, c.h)
		}
		for i, f := range frames {
			ours := readJPEG(t, filepath.Join(dir, f.Path))
			same := meanAbsDiff(ours, bare[i])
			if same > 5 {
				t.Errorf("%s at %v s: differs from the bare tool's frame by %.2f", c.file, f.Time, same)
			}
			for j, g := range frames {
				if other := meanAbsDiff(ours, bare[j]); j != i && other <= same {
					t.Errorf("%s at %v s: closer to the bare frame at %v s (%.2f) than to its own (%.2f)", c.file, f.Time, g.Time, other, same)
				}
			}
		}
	}
}

// bareFrame decodes the picture at t with the bare ffmpeg, scaled to w x h.
func bareFrame(t *testing.T, path string, at float64, w, h int) image.Image {
	t.Helper()
	out := filepath.Join(t.TempDir(), "bare.png")
	cmd := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-ss", fmt.Sprint(at), "-i", path, "-frames:v", "1",
		"-vf", fmt.Sprintf("scale=%d:%d", w, h), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bare ffmpeg: %v %s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// meanAbsDiff is the mean absolute difference of two pictures of one size,
// over the RGB channels, 0..255.
func meanAbsDiff(a, b image.Image) float64 {
	ab, bb := a.Bounds(), b.Bounds()
	if ab.Dx() != bb.Dx() || ab.Dy() != bb.Dy() {
		return 255
	}
	var sum float64
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			sum += absDiff(r1, r2) + absDiff(g1, g2) + absDiff(b1, b2)
		}
	}
	return sum / float64(3*ab.Dx()*ab.Dy())
}

func absDiff(a, b uint32) float64 {
	d := float64(a>>8) - float64(b>>8)
	if d < 0 {
		return -d
	}
	return d
}
