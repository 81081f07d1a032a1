package probe

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// Clips made by ffmpeg with known properties; the expectations are the
// properties asked of ffmpeg (checked once by hand with mediainfo 23.04,
// whose readings are quoted).

// A 3 s 320x240 25 fps interlaced (top field first) MPEG-2 video with two
// MP2 audio tracks (English, French) in a transport stream.
// mediainfo: MPEG-TS, MPEG Video 320x240 25.000 Interlaced TFF, audio PIDs
// 257 "en" and 258 "fr", menu PID 4096 "Probe" / "Metaharvest".
func TestGeneratedTransportStream(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	ts := filepath.Join(dir, "clip.ts")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=3:s=320x240:r=25", "-f", "lavfi", "-i", "sine=f=440:d=3",
		"-f", "lavfi", "-i", "sine=f=880:d=3", "-map", "0", "-map", "1", "-map", "2",
		"-c:v", "mpeg2video", "-flags", "+ilme+ildct", "-top", "1", "-c:a", "mp2",
		"-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra",
		"-metadata", "service_name=Probe", "-metadata", "service_provider=Metaharvest", "-f", "mpegts", ts)

	m := extractortest.Data(t, run(t, reg, "mediainfo", ts))
	for k, want := range map[string]any{
		"format": "mpegts", "video.format": "MPEG Video", "video.resolution": "320x240", "video.frame_rate": 25.0,
		"video.scan_type": "interlaced", "video.field_order": "tff", "video.chroma_subsampling": "4:2:0",
		"audio_stream_count": 2.0, "audio.format": "MPEG Audio", "audio.language": "eng",
	} {
		if got := at(m, k); got != want {
			t.Errorf("mediainfo %s = %v, want %v", k, got, want)
		}
	}
	if !near(m["duration"], 3.0, 0.1) {
		t.Errorf("duration %v", m["duration"])
	}
	if got := m["languages"]; !reflect.DeepEqual(got, []any{"eng", "fra"}) {
		t.Errorf("languages %v", got)
	}

	d := extractortest.Data(t, run(t, reg, "m2ts", ts))
	for k, want := range map[string]any{
		"packet_size": 188.0, "program_count": 1.0, "pcr_present": true, "scrambled": false, "continuity_errors": 0.0,
	} {
		if got := at(d, k); got != want {
			t.Errorf("m2ts %s = %v, want %v", k, got, want)
		}
	}
	if !near(d["duration"], 3.0, 0.1) {
		t.Errorf("m2ts duration %v", d["duration"])
	}
	prog := d["programs"].([]any)[0].(map[string]any)
	for k, want := range map[string]any{"pmt_pid": 4096.0, "pcr_pid": 256.0, "pcr_present": true,
		"service_name": "Probe", "service_provider": "Metaharvest", "stream_count": 3.0, "program_number": 1.0} {
		if prog[k] != want {
			t.Errorf("program %s = %v, want %v", k, prog[k], want)
		}
	}
	type stream struct {
		pid, streamType float64
		codec, lang     string
	}
	var got []stream
	for _, s := range d["streams"].([]any) {
		s := s.(map[string]any)
		lang, _ := s["language"].(string)
		got = append(got, stream{s["pid"].(float64), s["stream_type"].(float64), s["codec"].(string), lang})
	}
	want := []stream{{256, 2, "mpeg2video", ""}, {257, 3, "mp2", "eng"}, {258, 3, "mp2", "fra"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("streams %v, want %v", got, want)
	}
	kinds := map[float64]string{}
	for _, p := range d["pids"].([]any) {
		p := p.(map[string]any)
		kinds[p["pid"].(float64)] = p["kind"].(string)
	}
	for pid, kind := range map[float64]string{0: "PAT", 0x11: "SDT", 4096: "PMT", 256: "video", 257: "audio"} {
		if kinds[pid] != kind {
			t.Errorf("pid %v is %q, want %q (%v)", pid, kinds[pid], kind, kinds)
		}
	}

	// The same programme as Blu-ray M2TS: 192-byte packets.
	m2 := filepath.Join(dir, "clip.m2ts")
	extractortest.FFmpeg(t, "-i", ts, "-map", "0", "-c", "copy", "-mpegts_m2ts_mode", "1", "-f", "mpegts", m2)
	d = extractortest.Data(t, run(t, reg, "m2ts", m2))
	if d["packet_size"] != 192.0 || d["pcr_present"] != true || !near(d["duration"], 3.0, 0.1) {
		t.Errorf("m2ts of M2TS: %v", d)
	}

	// drm of a clear transport stream.
	dr := extractortest.Data(t, run(t, reg, "drm", ts))
	if dr["protected"] != false || dr["container"] != "mpegts" || dr["scrambled_packets"] != 0.0 {
		t.Errorf("drm of a clear stream: %v", dr)
	}
}

// One second of 24-bit 96 kHz 6-channel PCM in a WAV.
// mediainfo: Wave, PCM 6 channels 96000 Hz 24 bits, 13 824 kb/s, 1 000 ms.
func TestGeneratedMultichannelWAV(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	wav := filepath.Join(t.TempDir(), "six.wav")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "sine=f=1000:r=96000:d=1", "-ac", "6", "-c:a", "pcm_s24le", wav)
	a := extractortest.Data(t, run(t, reg, "audioinfo", wav))
	for k, want := range map[string]any{"format": "PCM", "codec": "pcm_s24le", "channels": 6.0, "channel_layout": "5.1",
		"sample_rate": 96000.0, "bit_depth": 24.0, "bit_rate": 13824000.0, "duration": 1.0, "track_count": 1.0, "cover_art": false} {
		if got := at(a, k); got != want {
			t.Errorf("audioinfo %s = %v, want %v", k, got, want)
		}
	}
	m := extractortest.Data(t, run(t, reg, "mediainfo", wav))
	if at(m, "audio.bit_depth") != 24.0 || at(m, "audio.channels") != 6.0 || m["video"] != nil {
		t.Errorf("mediainfo %v", m)
	}
}

// An MP3 with ID3 tags and a cover picture, and an Ogg Vorbis file with
// Vorbis comments (which ffprobe puts on the stream, not the container).
func TestGeneratedTaggedAudio(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	cover := filepath.Join(dir, "cover.png")
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	img.Set(3, 3, color.RGBA{255, 0, 0, 255})
	f, err := os.Create(cover)
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, img)
	f.Close()
	tags := []string{"-metadata", "title=Probe Song", "-metadata", "artist=The Testers", "-metadata", "album=Fixtures",
		"-metadata", "genre=Noise", "-metadata", "date=2021", "-metadata", "track=3/12"}

	mp3 := filepath.Join(dir, "song.mp3")
	extractortest.FFmpeg(t, append([]string{"-f", "lavfi", "-i", "sine=f=440:d=2", "-i", cover, "-map", "0", "-map", "1",
		"-c:a", "libmp3lame", "-b:a", "128k", "-c:v", "png", "-disposition:v", "attached_pic", "-id3v2_version", "3"},
		append(tags, mp3)...)...)
	ogg := filepath.Join(dir, "song.ogg")
	extractortest.FFmpeg(t, append([]string{"-f", "lavfi", "-i", "sine=f=440:d=2", "-c:a", "libvorbis"}, append(tags, ogg)...)...)

	for file, cover := range map[string]bool{mp3: true, ogg: false} {
		a := extractortest.Data(t, run(t, reg, "audioinfo", file))
		for k, want := range map[string]any{"title": "Probe Song", "artist": "The Testers", "album": "Fixtures",
			"genre": "Noise", "date": "2021", "track": "3/12", "cover_art": cover, "track_count": 1.0} {
			if got := at(a, k); got != want {
				t.Errorf("%s: audioinfo %s = %v, want %v", filepath.Base(file), k, got, want)
			}
		}
		if !near(a["duration"], 2.0, 0.1) {
			t.Errorf("%s: duration %v", filepath.Base(file), a["duration"])
		}
		m := extractortest.Data(t, run(t, reg, "mediainfo", file))
		if m["video"] != nil || m["video_stream_count"] != 0.0 || m["title"] != "Probe Song" && file == mp3 {
			t.Errorf("%s: mediainfo sees a video, or no title: %v", filepath.Base(file), m)
		}
	}
	// An MP4 without audio is not audioinfo's business.
	mute := filepath.Join(dir, "mute.mp4")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=1:s=64x48:r=10", "-c:v", "libx264", "-pix_fmt", "yuv420p", mute)
	if o := run(t, reg, "audioinfo", mute); !errorsIsUnsupported(o.Err) {
		t.Errorf("audioinfo of a mute video: %v %v", o.Err, o.Data)
	}
}

// MP4 details ffprobe reads from side data and tags: rotation (display
// matrix), timecode (tmcd track), HLG transfer, a variable frame rate (from
// the sample durations), 10-bit 4:2:2.
// mediainfo: Rotation 270.000, Time code of first frame 10:00:00:00,
// transfer HLG, Frame rate mode Variable (vfr.mp4) and Constant (the rest),
// BitDepth 10 ChromaSubsampling 4:2:2 (prores).
func TestGeneratedVideoDetails(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "base.mp4")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=2:s=320x180:r=25", "-c:v", "libx264", "-pix_fmt", "yuv420p",
		"-color_trc", "arib-std-b67", "-color_primaries", "bt2020", "-colorspace", "bt2020nc", "-timecode", "10:00:00:00", base)
	rotated := filepath.Join(dir, "rotated.mp4")
	extractortest.FFmpeg(t, "-i", base, "-map", "0:v", "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated)
	vfr := filepath.Join(dir, "vfr.mp4")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=2:s=160x90:r=25", "-vf", `setpts=if(lt(N\,20)\,N/25/TB\,(2*N-20)/25/TB)`,
		"-fps_mode", "passthrough", "-c:v", "libx264", "-pix_fmt", "yuv420p", vfr)
	prores := filepath.Join(dir, "prores.mov")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=1:s=320x180:r=24", "-c:v", "prores_ks", "-profile:v", "2", "-pix_fmt", "yuv422p10le", prores)

	m := extractortest.Data(t, run(t, reg, "mediainfo", base))
	for k, want := range map[string]any{"timecode": "10:00:00:00", "video.hdr": "HLG", "video.color_transfer": "arib-std-b67",
		"video.color_primaries": "bt2020", "video.frame_rate_mode": "CFR", "video.rotation": 0.0, "video.frame_count": 50.0} {
		if got := at(m, k); got != want {
			t.Errorf("base: %s = %v, want %v", k, got, want)
		}
	}
	if m["video_stream_count"] != 1.0 || m["stream_count"] != 2.0 { // video and the timecode track
		t.Errorf("base: streams %v / %v", m["video_stream_count"], m["stream_count"])
	}
	// ffmpeg 5.1 writes "rotate=90" as a display matrix turning the picture
	// 90 degrees counter-clockwise (ffprobe: rotation=90): mediainfo and
	// exiftool both read it as 270 clockwise.
	if got := at(extractortest.Data(t, run(t, reg, "mediainfo", rotated)), "video.rotation"); got != 270.0 {
		t.Errorf("rotated: rotation %v", got)
	}
	if got := at(extractortest.Data(t, run(t, reg, "mediainfo", vfr)), "video.frame_rate_mode"); got != "VFR" {
		t.Errorf("vfr: frame_rate_mode %v", got)
	}
	p := extractortest.Data(t, run(t, reg, "mediainfo", prores))
	for k, want := range map[string]any{"video.format": "ProRes", "video.bit_depth": 10.0, "video.chroma_subsampling": "4:2:2",
		"video.frame_rate": 24.0, "video.frame_rate_mode": "CFR"} {
		if got := at(p, k); got != want {
			t.Errorf("prores: %s = %v, want %v", k, got, want)
		}
	}
}
