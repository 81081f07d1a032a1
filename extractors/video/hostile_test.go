package video

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// failsWith runs each extractor on path and checks that it fails with a
// deterministic error whose text contains want, leaving no artifact.
func failsWith(t *testing.T, reg *extractors.Registry, path, want string, names ...string) {
	t.Helper()
	for _, name := range names {
		o, dir := run(t, reg, name, path)
		var pe *extractors.PanicError
		switch {
		case o.Err == nil:
			t.Errorf("%s on %s: no error, data %v", name, filepath.Base(path), o.Data)
		case errors.As(o.Err, &pe) || extractors.IsTransient(o.Err) || errors.Is(o.Err, extractors.ErrUnsupported):
			t.Errorf("%s on %s: %v", name, filepath.Base(path), o.Err)
		case !strings.Contains(o.Err.Error(), want):
			t.Errorf("%s on %s: %v, want %q", name, filepath.Base(path), o.Err, want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s on %s: artifact directory left: %v", name, filepath.Base(path), err)
		}
	}
}

// y4m writes a YUV4MPEG2 file whose header declares w x h pictures and
// whose one frame holds a few bytes: ffprobe reads the size from the
// header alone.
func y4m(t *testing.T, w, h string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "flood.y4m")
	body := "YUV4MPEG2 W" + w + " H" + h + " F25:1 Ip A1:1 C420jpeg\nFRAME\n" + strings.Repeat("\x80", 4096)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Pictures over 40 MP or 16384 a side are refused before decoding.
func TestPixelFloodRefusedBeforeDecoding(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, nil)
	for _, c := range []struct{ w, h, want string }{
		{"9000", "5000", "over the limit"},
		{"20000", "16", "over the limit"},
		{"30000", "30000", "is invalid"}, // ffprobe itself refuses it
	} {
		failsWith(t, reg, y4m(t, c.w, c.h), c.want, "video_main_frames", "video_previews")
	}
}

// The decoder itself refuses a picture over the bound that the stream did
// not declare at first (a raw MJPEG stream whose second picture is
// 9000x5000): ffmpeg run with decodeArgs reports it and decodes no more
// than the small one.
func TestDecoderBoundsPicturesMidStream(t *testing.T) {
	t.Parallel()
	small := extractortest.Clip(t, "small.mjpeg", "-f", "lavfi", "-i", "color=red:s=64x64:d=0.04:r=25", "-f", "mjpeg")
	big := extractortest.Clip(t, "big.mjpeg", "-f", "lavfi", "-i", "color=blue:s=9000x5000:d=0.04:r=25", "-f", "mjpeg")
	a, _ := os.ReadFile(small)
	b, _ := os.ReadFile(big)
	stream := filepath.Join(t.TempDir(), "grow.mjpeg")
	os.WriteFile(stream, append(a, b...), 0o644)
	args := append(decodeArgs(stream, 10), "-f", "null", "-")
	out, _ := exec.Command("ffmpeg", args...).CombinedOutput()
	if !strings.Contains(string(out), "9000x5000") {
		t.Errorf("the decoder did not refuse the 45 MP picture: %s", out)
	}
	// The extractor keeps what it could decode.
	o, _ := run(t, newRegistry(t, nil), "video_main_frames", stream)
	if o.Err == nil {
		for _, f := range framesOf(t, o) {
			if f.Width != 64 {
				t.Errorf("frame %+v", f)
			}
		}
	}
}

// A playlist disguised as .mp4 fetches nothing: every extractor fails
// without the local listener seeing a request.
func TestDisguisedPlaylistFetchesNothing(t *testing.T) {
	t.Parallel()
	base := extractortest.NoRequestURL(t)
	dir := t.TempDir()
	reg := newRegistry(t, nil)
	for name, body := range map[string]string{
		"hls.mp4": "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10,\n" + base + "/seg0.ts\n#EXTINF:10,\n" +
			base + "/seg1.ts\n#EXT-X-ENDLIST\n",
		"master.mp4": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1280000\n" + base + "/low.m3u8\n",
		"concat.mp4": "ffconcat version 1.0\nfile " + base + "/a.mp4\nfile /etc/passwd\n",
		"dash.mp4": `<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period><AdaptationSet><Representation>` +
			`<BaseURL>` + base + `/v.mp4</BaseURL></Representation></AdaptationSet></Period></MPD>`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		for _, x := range familyNames {
			if o, _ := run(t, reg, x, p); o.Err == nil || extractors.IsTransient(o.Err) {
				t.Errorf("%s on %s: %v", x, name, o.Err)
			}
		}
	}
}

// A truncated MP4 is a recorded error: with its index at the end nothing
// can be read; with its index first the pictures end long before the
// declared 6 s.
func TestTruncatedMP4(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, nil)
	for _, faststart := range []bool{false, true} {
		args := []string{"-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=6", "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"}
		if faststart {
			args = append(args, "-movflags", "+faststart")
		}
		clip := extractortest.Clip(t, "whole.mp4", args...)
		b, _ := os.ReadFile(clip)
		cut := filepath.Join(t.TempDir(), "cut.mp4")
		os.WriteFile(cut, b[:len(b)/2], 0o644)
		want := "ffprobe"
		if faststart {
			want = "truncated"
		}
		failsWith(t, reg, cut, want, "video_main_frames", "video_previews")
	}
}

// A stream that declares no length and goes on past max_duration (a raw
// H.264 stream, a live Matroska recording) is a recorded error, decoded
// only a little past the limit; a file that declares a length past the
// limit is analysed up to the limit.
func TestEndlessStreams(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, map[string]string{"VIDEO_MAIN_FRAMES_MAX_DURATION": "3", "VIDEO_PREVIEWS_MAX_DURATION": "3",
		"AUDIO_PREVIEWS_MAX_DURATION": "3"})
	raw := extractortest.Clip(t, "raw.h264", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=12", "-c:v", "libx264", "-preset", "ultrafast", "-f", "h264")
	failsWith(t, reg, raw, "declares no duration and goes on past the limit of 3 s", "video_main_frames", "video_previews")
	live := extractortest.Clip(t, "live.mka", "-f", "lavfi", "-i", "sine=d=12", "-c:a", "aac", "-f", "matroska", "-live", "1")
	if _, d := bareProbe(t, live); d != 0 {
		t.Fatalf("the live recording declares %v s", d)
	}
	failsWith(t, reg, live, "declares no duration", "audio_previews")

	long := extractortest.Clip(t, "long.mp4", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=6", "-f", "lavfi", "-i", "sine=d=6",
		"-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac")
	o, _ := run(t, reg, "video_main_frames", long)
	mustSucceed(t, o)
	for _, f := range framesOf(t, o) {
		if f.Time >= 3 {
			t.Errorf("frame past the limit: %+v", f)
		}
	}
	if o.Data["duration"] != 3.0 {
		t.Errorf("duration analysed %v", o.Data["duration"])
	}
	o, _ = run(t, reg, "video_previews", long)
	mustSucceed(t, o)
	if d := o.Data["duration"].(float64); !near(d, 3, 0.1) {
		t.Errorf("preview of %v s", d)
	}
}

// Empty and garbage files are recorded errors.
func TestEmptyAndGarbage(t *testing.T) {
	t.Parallel()
	reg := newRegistry(t, nil)
	empty := filepath.Join(t.TempDir(), "empty.mp4")
	os.WriteFile(empty, nil, 0o644)
	failsWith(t, reg, empty, "ffprobe", familyNames...)
	text := filepath.Join(t.TempDir(), "notes.mp4")
	os.WriteFile(text, []byte(strings.Repeat("not a video at all\n", 100)), 0o644)
	failsWith(t, reg, text, "ffprobe", familyNames...)
}
