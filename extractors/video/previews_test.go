package video

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// bareProbe reads a file with the bare ffprobe, outside the code under test.
type bareStream struct {
	CodecType  string `json:"codec_type"`
	CodecName  string `json:"codec_name"`
	Profile    string `json:"profile"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Channels   int    `json:"channels"`
	SampleRate string `json:"sample_rate"`
	PixFmt     string `json:"pix_fmt"`
}

func bareProbe(t *testing.T, path string) (streams []bareStream, duration float64) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var p struct {
		Streams []bareStream `json:"streams"`
		Format  struct {
			Duration float64 `json:"duration,string"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	return p.Streams, p.Format.Duration
}

// topBoxes lists the top-level boxes of an MP4 file.
func topBoxes(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := 0; i+8 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i:]))
		out = append(out, string(b[i+4:i+8]))
		if n < 8 {
			break
		}
		i += n
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Previews of the Debian samples play in a browser: H.264 Main in MP4 with
// the index first, AAC stereo at most, within 854x480, as long as the
// source (durations by the bare ffprobe: mp4.mp4 5.568 s, mkv-1s.mkv 1.002 s).
// (TestSuite checks the previews of the WebM and Ogg samples.)
func TestVideoPreviewsOfSamples(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, nil)
	for _, c := range []struct {
		file          string
		w, h          int
		duration      float64
		audioChannels int
	}{
		{"mp4.mp4", 560, 320, 5.568, 1},
		{"mkv-1s.mkv", 852, 480, 1.002, 2}, // 1280x720, 5.1 sound
	} {
		o, dir := run(t, reg, "video_previews", filepath.Join("testdata", c.file))
		mustSucceed(t, o)
		path := filepath.Join(dir, "preview.mp4")
		streams, dur := bareProbe(t, path)
		if len(streams) != 2 || streams[0].CodecName != "h264" || streams[0].Profile != "Main" || streams[0].PixFmt != "yuv420p" ||
			streams[0].Width != c.w || streams[0].Height != c.h || streams[1].CodecName != "aac" || streams[1].Channels != c.audioChannels {
			t.Errorf("%s: preview streams %+v", c.file, streams)
		}
		if !near(dur, c.duration, 0.1) {
			t.Errorf("%s: preview lasts %v s, want %v", c.file, dur, c.duration)
		}
		boxes := topBoxes(t, path)
		if m, d := indexOf(boxes, "moov"), indexOf(boxes, "mdat"); m < 0 || d < 0 || m > d {
			t.Errorf("%s: boxes %v: the index is not first", c.file, boxes)
		}
		fi, _ := os.Stat(path)
		d := o.Data
		if d["path"] != "preview.mp4" || d["mime_type"] != "video/mp4" || d["format"] != "mp4" || d["size"] != fi.Size() ||
			d["width"] != c.w || d["height"] != c.h || d["video_codec"] != "h264" || d["audio_codec"] != "aac" ||
			!near(d["duration"].(float64), dur, 0.001) || d["bit_rate"].(int64) <= 0 || d["bit_rate"].(int64) > 1_200_000 {
			t.Errorf("%s: data %v", c.file, d)
		}
		if len(o.Artifacts) != 1 || o.Artifacts[0] != (extractors.Artifact{Path: "preview.mp4", Kind: "preview", Width: c.w, Height: c.h}) {
			t.Errorf("%s: artifacts %+v", c.file, o.Artifacts)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: %d files in the artifact directory", c.file, len(entries))
		}
	}
}

// A video without sound gets a preview without sound; an interlaced
// video at 50 frames a second a progressive one at 25.
func TestVideoPreviewSilentFast(t *testing.T) {
	t.Parallel()
	clip := extractortest.Clip(t, "fast.mp4", "-f", "lavfi", "-i", "testsrc=s=320x240:r=50:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
		"-flags", "+ildct+ilme", "-x264opts", "tff=1")
	if s, _ := bareProbe(t, clip); len(s) != 1 {
		t.Fatal(s)
	}
	if out, _ := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=field_order", "-of", "csv=p=0", clip).Output(); string(out) != "tt\n" {
		t.Fatalf("the source is not interlaced: %q", out)
	}
	o, dir := run(t, newRegistry(t, nil), "video_previews", clip)
	mustSucceed(t, o)
	streams, _ := bareProbe(t, filepath.Join(dir, "preview.mp4"))
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=avg_frame_rate", "-of", "csv=p=0",
		filepath.Join(dir, "preview.mp4")).Output()
	if err != nil || len(streams) != 1 || string(out) != "25/1\n" {
		t.Errorf("streams %+v rate %q %v", streams, out, err)
	}
	if out, _ := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=field_order", "-of", "csv=p=0",
		filepath.Join(dir, "preview.mp4")).Output(); string(out) != "progressive\n" {
		t.Errorf("preview field order %q", out)
	}
	if _, ok := o.Data["audio_codec"]; ok {
		t.Errorf("data %v", o.Data)
	}
}

// Audio previews: AAC in MP4 (.m4a), stereo at most, as long as the source
// (bare ffprobe: complete.oga 1.089 s stereo 44.1 kHz, pluck-pcm16.wav
// 0.300 s stereo 11.025 kHz).
func TestAudioPreviewsOfSamples(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, nil)
	for _, c := range []struct {
		file     string
		duration float64
		rate     string
	}{
		{"testdata/complete.oga", 1.089, "44100"},
		{"../testdata/pluck-pcm16.wav", 0.300, "11025"},
	} {
		o, dir := run(t, reg, "audio_previews", c.file)
		mustSucceed(t, o)
		path := filepath.Join(dir, "preview.m4a")
		streams, dur := bareProbe(t, path)
		if len(streams) != 1 || streams[0].CodecName != "aac" || streams[0].Channels != 2 || streams[0].SampleRate != c.rate {
			t.Errorf("%s: streams %+v", c.file, streams)
		}
		if !near(dur, c.duration, 0.1) {
			t.Errorf("%s: lasts %v s, want %v", c.file, dur, c.duration)
		}
		if boxes := topBoxes(t, path); indexOf(boxes, "moov") > indexOf(boxes, "mdat") {
			t.Errorf("%s: boxes %v", c.file, boxes)
		}
		d := o.Data
		if d["path"] != "preview.m4a" || d["mime_type"] != "audio/mp4" || d["audio_codec"] != "aac" || d["width"] != nil ||
			len(o.Artifacts) != 1 || o.Artifacts[0].Kind != "preview" || o.Artifacts[0].Path != "preview.m4a" {
			t.Errorf("%s: data %v artifacts %+v", c.file, d, o.Artifacts)
		}
	}
}

// Each preview extractor leaves the other's files alone: an audio file is
// not a video, a video is not an audio file, a video without pictures is
// not for frames.
func TestPreviewsLeaveOthersFiles(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, nil)
	audioOnly := extractortest.Clip(t, "tone.mp4", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac")
	for _, c := range []struct{ name, file string }{
		{"audio_previews", "testdata/mp4.mp4"},
		{"video_previews", "testdata/complete.oga"},
		{"video_main_frames", "testdata/complete.oga"},
		{"video_previews", audioOnly},
	} {
		if o, _ := run(t, reg, c.name, c.file); !errors.Is(o.Err, extractors.ErrUnsupported) {
			t.Errorf("%s on %s: %v", c.name, c.file, o.Err)
		}
	}
	o, _ := run(t, reg, "audio_previews", audioOnly)
	mustSucceed(t, o)
}

func TestPreviewRates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		declared     float64
		w, h, vr, ar int
	}{
		{60, 854, 480, 1_000_000, 96_000},
		{1800, 854, 480, 1_000_000, 96_000},
		{3600, 640, 360, 532_523, 64_000},  // 256 MiB over an hour
		{14400, 640, 360, 100_000, 64_000}, // floor
		{0, 640, 360, 100_000, 64_000},     // unknown: as long as the limit
		{2400, 640, 360, 600_000, 64_000},  // ceiling
	} {
		w, h, vr, ar := previewRates(c.declared, 14400)
		if w != c.w || h != c.h || vr != c.vr || ar != c.ar {
			t.Errorf("%v s: %dx%d %d %d", c.declared, w, h, vr, ar)
		}
	}
	for fr, want := range map[float64]string{25: "", 30: "", 29.97: "", 59.94: ",fps=29.97", 50: ",fps=25", 120: ",fps=30", 144: ",fps=28.8"} {
		if got := frameRateFilter(fr); got != want {
			t.Errorf("frame rate %v: %q, want %q", fr, got, want)
		}
	}
	if audioRate(2, 60, 14400) != 128_000 || audioRate(1, 60, 14400) != 64_000 || audioRate(2, 7200, 14400) != 64_000 || audioRate(6, 0, 14400) != 64_000 {
		t.Error("audio rates")
	}
}
