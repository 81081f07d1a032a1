package recognition

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// fakeVendor is a provider the tests start: it records what it is sent
// and answers with answer (a function of the request's input).
type fakeVendor struct {
	mu       sync.Mutex
	requests []request
	status   int
	answer   func(r request) string
}

type request struct {
	Path  string
	Auth  string
	Task  string `json:"task"`
	Input struct {
		Media []struct {
			Type     string   `json:"type"`
			Time     *float64 `json:"time"`
			Start    *float64 `json:"start"`
			Duration *float64 `json:"duration"`
			Data     []byte   `json:"data"`
		} `json:"media"`
	} `json:"input"`
}

func (f *fakeVendor) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req request
		if err := json.Unmarshal(raw, &req); err != nil {
			w.WriteHeader(400)
			return
		}
		req.Path, req.Auth = r.URL.Path, r.Header.Get("Authorization")
		f.mu.Lock()
		f.requests = append(f.requests, req)
		status, answer := f.status, f.answer
		f.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
			return
		}
		io.WriteString(w, answer(req))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (f *fakeVendor) last(t *testing.T) request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("the provider got no request")
	}
	return f.requests[len(f.requests)-1]
}

func registry(t testing.TB, env map[string]string) *extractors.Registry {
	return extractortest.Registry(t, env, "store", "mime_type", "vendor_audio_classification", "vendorsports")
}

// run runs one extractor of reg on the file at path as a harvest does, the
// extractors before it having given prior and their artifacts below
// artifacts (the item's artifact directory; a fresh one when empty).
func run(t testing.TB, reg *extractors.Registry, name, path string, prior map[string]json.RawMessage, artifacts string) extractors.Outcome {
	t.Helper()
	in := extractortest.Input(t, path)
	in.Prior = prior
	if artifacts != "" {
		in.ArtifactDir = artifacts
	}
	return extractortest.Run(t, reg, name, in)
}

// clip makes a video of seconds with a 440 Hz tone (audio false: none).
func clip(t testing.TB, name string, seconds string, audio bool) string {
	t.Helper()
	args := []string{"-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=" + seconds}
	if audio {
		args = append(args, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration="+seconds, "-c:a", "aac")
	}
	return extractortest.Clip(t, name, append(args, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-shortest")...)
}

func env(url string) map[string]string {
	return map[string]string{"VENDOR_API_URL": url, "VENDOR_API_KEY": "vkey", "VENDOR_AUDIO_SECONDS": "4", "VENDOR_SPORTS_FRAMES": "3"}
}

func TestAudioClassification(t *testing.T) {
	t.Parallel()
	f := &fakeVendor{answer: func(r request) string {
		return `{"labels":[{"name":"Sine wave","confidence":0.9,"start":0,"end":3.5},{"name":"music","confidence":0.2,"start":1,"end":2},{"name":"bad","confidence":7}]}`
	}}
	srv := f.start(t)
	reg := registry(t, env(srv.URL))
	path := clip(t, "tone.mp4", "10", true)
	o := run(t, reg, "vendor_audio_classification", path, nil, "")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	req := f.last(t)
	if req.Path != "/audio_classification" || req.Auth != "Bearer vkey" || req.Task != "audio_classification" || len(req.Input.Media) != 1 {
		t.Fatalf("request %+v", req)
	}
	m := req.Input.Media[0]
	// A 4 s sample from the middle of 10 s: 3 s to 7 s, mono 16 kHz WAV.
	if m.Type != "audio/wav" || *m.Start != 3 || *m.Duration != 4 || string(m.Data[:4]) != "RIFF" ||
		binary.LittleEndian.Uint16(m.Data[22:]) != 1 || binary.LittleEndian.Uint32(m.Data[24:]) != 16000 {
		t.Errorf("media %s start %v duration %v, %d bytes", m.Type, *m.Start, *m.Duration, len(m.Data))
	}
	if secs := float64(len(m.Data)-44) / provider.WAVBytesPerSecond; secs < 3.9 || secs > 4.1 {
		t.Errorf("sample of %.2f s", secs)
	}
	want := `{"clip":{"duration":4,"start":3},"labels":[{"confidence":0.9,"end":6.5,"name":"Sine wave","start":3},{"confidence":0.2,"end":5,"name":"music","start":4}],"top":"Sine wave"}`
	if string(o.JSON) != want {
		t.Errorf("data %s\nwant %s", o.JSON, want)
	}
	if len(o.Segments) != 2 || o.Segments[0].Time != 3 || o.Segments[0].Summary.Tags[0].Name != "Sine wave" || o.Segments[0].Summary.Tags[0].Source != "vendor" {
		t.Errorf("segments %+v", o.Segments)
	}
}

func TestAudioClassificationRefusals(t *testing.T) {
	t.Parallel()
	f := &fakeVendor{answer: func(request) string { return `{"labels":[]}` }}
	srv := f.start(t)
	reg := registry(t, env(srv.URL))
	if o := run(t, reg, "vendor_audio_classification", clip(t, "silent.mp4", "1", false), nil, ""); !errors.Is(o.Err, extractors.ErrUnsupported) {
		t.Errorf("no audio: %v", o.Err)
	}
	f.mu.Lock()
	f.status = 502
	f.mu.Unlock()
	if o := run(t, reg, "vendor_audio_classification", clip(t, "tone.mp4", "1", true), nil, ""); !extractors.IsTransient(o.Err) {
		t.Errorf("provider down: %v", o.Err)
	}
	for _, e := range []map[string]string{{}, {"VENDOR_API_URL": srv.URL}} {
		reg := registry(t, e)
		for _, name := range []string{"vendor_audio_classification", "vendorsports"} {
			if ok, why := reg.Available(name); ok || !strings.HasPrefix(why, "vendor provider setting ") || !strings.HasSuffix(why, "not set") {
				t.Errorf("%s with %v: %v %q", name, e, ok, why)
			}
		}
	}
	bad := env(srv.URL)
	bad["VENDOR_AUDIO_SECONDS"] = "3600"
	if o := run(t, registry(t, bad), "vendor_audio_classification", clip(t, "tone.mp4", "1", true), nil, ""); !errors.Is(o.Err, extractors.ErrUnavailable) {
		t.Errorf("bad seconds: %v", o.Err)
	}
}

func TestSports(t *testing.T) {
	t.Parallel()
	f := &fakeVendor{answer: func(r request) string {
		var ls []string
		for i, m := range r.Input.Media {
			name := "football"
			if i == 2 {
				name = "tennis"
			}
			b, _ := json.Marshal(map[string]any{"name": name, "confidence": 0.5 + 0.1*float64(i), "time": *m.Time})
			ls = append(ls, string(b))
		}
		return `{"labels":[` + strings.Join(ls, ",") + `,{"name":"late","confidence":0.9,"time":999}]}`
	}}
	srv := f.start(t)
	reg := registry(t, env(srv.URL))
	o := run(t, reg, "vendorsports", clip(t, "match.mp4", "6", false), nil, "")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	req := f.last(t)
	if req.Task != "sports" || len(req.Input.Media) != 3 {
		t.Fatalf("request %+v", req)
	}
	for i, m := range req.Input.Media {
		// Frames at the middles of thirds of 6 s: 1, 3, 5; JPEG, 320 wide.
		if m.Type != "image/jpeg" || *m.Time != float64(2*i+1) || !bytes.HasPrefix(m.Data, []byte{0xff, 0xd8}) {
			t.Errorf("frame %d: %s at %v, %x", i, m.Type, *m.Time, m.Data[:4])
		}
	}
	d := o.Data
	if d["sport"] != "football" || d["frames"] != 3 || len(d["labels"].([]any)) != 3 || len(o.Segments) != 3 {
		t.Errorf("%s %+v", o.JSON, o.Segments)
	}
}

func TestSportsUsesMainFrames(t *testing.T) {
	t.Parallel()
	f := &fakeVendor{answer: func(request) string { return `{"labels":[{"name":"golf","confidence":0.8,"time":2}]}` }}
	srv := f.start(t)
	reg := registry(t, env(srv.URL))
	artifacts := t.TempDir()
	frames := filepath.Join(artifacts, "video_main_frames")
	os.MkdirAll(frames, 0o755)
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0, 'm', 'a', 'i', 'n'}
	for _, n := range []string{"f0.jpg", "f1.jpg", "f2.jpg", "f3.jpg", "f4.jpg", "f5.jpg"} {
		os.WriteFile(filepath.Join(frames, n), jpeg, 0o644)
	}
	prior := map[string]json.RawMessage{"video_main_frames": json.RawMessage(`{"count":6,"interval":1,"frames":[
		{"time":0,"path":"f0.jpg"},{"time":1,"path":"f1.jpg"},{"time":2,"path":"f2.jpg"},
		{"time":3,"path":"f3.jpg"},{"time":4,"path":"f4.jpg"},{"time":5,"path":"f5.jpg"}]}`)}
	o := run(t, reg, "vendorsports", clip(t, "match.mp4", "6", false), prior, artifacts)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	req := f.last(t)
	if len(req.Input.Media) != 3 || *req.Input.Media[1].Time != 2 || !bytes.Equal(req.Input.Media[1].Data, jpeg) {
		t.Errorf("media %+v", req.Input.Media)
	}
	// A path out of the artifact directory: the frames are decoded instead.
	prior["video_main_frames"] = json.RawMessage(`{"frames":[{"time":0,"path":"../../etc/passwd.jpg"}]}`)
	o = run(t, reg, "vendorsports", clip(t, "match.mp4", "6", false), prior, artifacts)
	if req := f.last(t); o.Err != nil || len(req.Input.Media) != 3 || bytes.Equal(req.Input.Media[0].Data, jpeg) {
		t.Errorf("escaping path: %v %d", o.Err, len(req.Input.Media))
	}
}

func TestSuite(t *testing.T) {
	t.Parallel()
	f := &fakeVendor{answer: func(request) string { return `{"labels":[{"name":"x","confidence":0.5,"time":0.5}]}` }}
	srv := f.start(t)
	samples := []string{clip(t, "tone.mp4", "2", true), clip(t, "silent.mp4", "1", false)}
	extractortest.Suite(t, registry(t, env(srv.URL)), samples)
}
