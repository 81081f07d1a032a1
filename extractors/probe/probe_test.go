package probe

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// names are the extractors of this family.
var names = []string{"mediainfo", "audioinfo", "m2ts", "dpx", "drm"}

// registry holds this family's extractors only.
func registry(t testing.TB) *extractors.Registry {
	return extractortest.Registry(t, nil, names...)
}

// run runs one extractor of reg on a file.
func run(t testing.TB, reg *extractors.Registry, name, path string) extractors.Outcome {
	t.Helper()
	return extractortest.Run(t, reg, name, extractortest.Input(t, path))
}

// at walks a dotted path through decoded data ("video.width").
func at(data map[string]any, path string) any {
	var v any = data
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			if o, isObj := v.(obj); isObj {
				m = o
			} else {
				return nil
			}
		}
		v = m[k]
	}
	return v
}

func near(got any, want, tol float64) bool {
	f, ok := got.(float64)
	return ok && math.Abs(f-want) <= tol
}

func TestSuite(t *testing.T) {
	t.Parallel()
	got := extractortest.Suite(t, registry(t), extractortest.Samples(t, "testdata"))
	for name, byFile := range got {
		for file, o := range byFile {
			if o.Err != nil && !errorsIsUnsupported(o.Err) {
				t.Errorf("%s on %s: %v", name, file, o.Err)
			}
		}
	}
}

func errorsIsUnsupported(err error) bool {
	return err != nil && strings.Contains(err.Error(), extractors.ErrUnsupported.Error())
}

// TestSampleFacts checks the facts of the real samples against MediaInfo
// 23.04's reading of the same files (mediainfo --Inform, by hand), to 0.1 s.
func TestSampleFacts(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	type facts struct {
		duration                float64
		width, height           float64
		vformat, aformat        string
		fps                     float64
		channels, rate          float64
		mode, chroma, scan, dar string
	}
	cases := map[string]facts{
		// mediainfo: MPEG-4 5568 ms, AVC 560x320 30.000 CFR Progressive 4:2:0, AAC 1 ch 48000
		"mp4.mp4": {duration: 5.568, width: 560, height: 320, vformat: "AVC", aformat: "AAC", fps: 30, channels: 1, rate: 48000, mode: "CFR", chroma: "4:2:0", scan: "progressive", dar: "7:4"},
		// mediainfo: MPEG-4 5599 ms, AVC 560x320 30.000 CFR Progressive 4:2:0, AAC 1 ch 48000
		"mov.mov": {duration: 5.599, width: 560, height: 320, vformat: "AVC", aformat: "AAC", fps: 30, channels: 1, rate: 48000, mode: "CFR", chroma: "4:2:0", scan: "progressive", dar: "7:4"},
		// mediainfo: MPEG-4 5534 ms, H.263 352x288 DAR 4:3 15.000 CFR 4:2:0, AMR 1 ch 8000
		"3gp.3gp": {duration: 5.534, width: 352, height: 288, vformat: "H.263", aformat: "AMR", fps: 15, channels: 1, rate: 8000, mode: "CFR", chroma: "4:2:0", dar: "4:3"},
		// mediainfo: WebM 5568 ms, VP8 560x320 30.000, Vorbis 1 ch 48000
		"webm.webm": {duration: 5.568, width: 560, height: 320, vformat: "VP8", aformat: "Vorbis", fps: 30, channels: 1, rate: 48000, dar: "7:4"},
		// mediainfo: Wave 1428 ms, PCM 1 ch 48000 16 bits
		"Front_Center.wav": {duration: 1.428, aformat: "PCM", channels: 1, rate: 48000},
		// mediainfo: Ogg 139 ms, Vorbis 2 ch 44100
		"bell.oga": {duration: 0.139, aformat: "Vorbis", channels: 2, rate: 44100},
		// mediainfo: Ogg 1480 ms, Vorbis 1 ch 48000
		"audio-channel-front-left.oga": {duration: 1.480, aformat: "Vorbis", channels: 1, rate: 48000},
	}
	for file, want := range cases {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join("testdata", file)
			m := extractortest.Data(t, run(t, reg, "mediainfo", path))
			if !near(m["duration"], want.duration, 0.1) {
				t.Errorf("duration %v, want %v", m["duration"], want.duration)
			}
			if want.width > 0 {
				for k, w := range map[string]any{"video.width": want.width, "video.height": want.height, "video.format": want.vformat,
					"video.frame_rate": want.fps, "video.aspect_ratio": want.dar} {
					if got := at(m, k); got != w {
						t.Errorf("%s = %v, want %v", k, got, w)
					}
				}
				for k, w := range map[string]string{"video.frame_rate_mode": want.mode, "video.chroma_subsampling": want.chroma, "video.scan_type": want.scan} {
					if w != "" && at(m, k) != w {
						t.Errorf("%s = %v, want %v", k, at(m, k), w)
					}
				}
			} else if m["video"] != nil {
				t.Errorf("video in an audio file: %v", m["video"])
			}
			for k, w := range map[string]any{"audio.format": want.aformat, "audio.channels": want.channels, "audio.sample_rate": want.rate} {
				if got := at(m, k); got != w {
					t.Errorf("%s = %v, want %v", k, got, w)
				}
			}
			a := extractortest.Data(t, run(t, reg, "audioinfo", path))
			if a["format"] != want.aformat || a["channels"] != want.channels || a["sample_rate"] != want.rate || !near(a["duration"], want.duration, 0.1) {
				t.Errorf("audioinfo %v", a)
			}
		})
	}
}

// TestGoldenProbeReadings feeds ffprobe readings recorded from real files
// (testdata/ffprobe, made with av.ProbeArgs' command) to the pure parts of
// mediainfo and audioinfo.
func TestGoldenProbeReadings(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/ffprobe", ".json", func(t *testing.T, name string, in []byte) (any, error) {
		p, err := av.Parse(in)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"mediainfo": describeMedia(p, nil)}
		if a, err := describeAudioFile(p); err == nil {
			out["audioinfo"] = a
		} else {
			out["audioinfo"] = err.Error()
		}
		return out, nil
	})
}

// FuzzDescribe feeds odd ffprobe output to the pure parts of mediainfo,
// audioinfo, m2ts and drm.
func FuzzDescribe(f *testing.F) {
	for _, name := range []string{"mp4.mp4.json", "mkv.mkv.json", "bell.oga.json", "3gp.3gp.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata/ffprobe", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"format":{"duration":"1e308","bit_rate":"-5","tags":{"creation_time":"0000-00-00"}},"streams":[{"codec_type":"video",` +
		`"width":-1,"height":99999999,"display_aspect_ratio":"0:0","sample_aspect_ratio":"1073741824:1","avg_frame_rate":"1/0",` +
		`"level":-99,"codec_name":"hevc","pix_fmt":"p010le","tags":{"DURATION":"99:99:99.9","BPS":"x"},` +
		`"side_data_list":[{"rotation":"NaN"}]},{"codec_type":"audio","id":"0xzz","codec_tag":"0x1ffff","disposition":{"default":1}}],` +
		`"programs":[{"pcr_pid":-1,"pmt_pid":99999,"streams":[{"index":7}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := av.Parse(b)
		if err != nil {
			return
		}
		for _, d := range []map[string]any{describeMedia(p, nil), describeProbeProtection(p),
			describeTS(&tsScan{PacketSize: 188, PIDs: map[uint16]*tsPID{256: {PID: 256, Packets: 1}}}, p)} {
			if _, err := json.Marshal(d); err != nil {
				t.Fatalf("data does not encode: %v", err)
			}
		}
		if d, err := describeAudioFile(p); err == nil {
			if _, err := json.Marshal(d); err != nil {
				t.Fatalf("audio data does not encode: %v", err)
			}
		}
	})
}
