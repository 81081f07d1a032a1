package speech

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/provider"
)

// speech_to_text_provider against a provider the tests start. The golden
// tests replay recorded answers (testdata/provider/*.json) to the
// recognition of ill-disposed.wav (2.99 s: one clip) and pin what is kept
// of each: data and caption, refusals included.

// clipRequest is a speech_to_text request as the provider reads it.
type clipRequest struct {
	Path, Auth string
	Task       string `json:"task"`
	Input      struct {
		Language string `json:"language"`
		Media    []struct {
			Type     string   `json:"type"`
			Start    *float64 `json:"start"`
			Duration *float64 `json:"duration"`
			Data     []byte   `json:"data"`
		} `json:"media"`
	} `json:"input"`
}

// speechProvider answers with reply, given the request and its number (1
// for the first).
type speechProvider struct {
	mu       sync.Mutex
	requests []clipRequest
	reply    func(n int, r clipRequest) (status int, body string)
}

func (f *speechProvider) start(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req clipRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			w.WriteHeader(400)
			return
		}
		req.Path, req.Auth = r.URL.Path, r.Header.Get("Authorization")
		f.mu.Lock()
		f.requests = append(f.requests, req)
		n, reply := len(f.requests), f.reply
		f.mu.Unlock()
		status, body := reply(n, req)
		if status != 0 {
			w.WriteHeader(status)
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (f *speechProvider) all() []clipRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]clipRequest(nil), f.requests...)
}

func providerEnv(url string, more ...string) map[string]string {
	env := map[string]string{"SPEECH_API_URL": url, "SPEECH_API_KEY": "skey", "SPEECH_API_CLIP_SECONDS": "10"}
	for i := 0; i+1 < len(more); i += 2 {
		env[more[i]] = more[i+1]
	}
	return env
}

func providerRegistry(t testing.TB, env map[string]string) *extractors.Registry {
	return extractortest.Registry(t, env, "store", "mime_type", ProviderName)
}

func runProvider(t testing.TB, reg *extractors.Registry, path string) extractors.Outcome {
	t.Helper()
	return extractortest.Run(t, reg, ProviderName, extractortest.Input(t, path))
}

// checkClip checks a request against the contract: the task, the key in
// the header, one mono 16 kHz 16-bit WAV clip of duration seconds at
// start, whose header says what it holds.
func checkClip(t *testing.T, r clipRequest, start, duration float64) {
	t.Helper()
	if r.Path != "/speech_to_text" || r.Task != "speech_to_text" || r.Auth != "Bearer skey" || len(r.Input.Media) != 1 {
		t.Fatalf("request %s %q %q with %d media", r.Path, r.Task, r.Auth, len(r.Input.Media))
	}
	m := r.Input.Media[0]
	d := m.Data
	if m.Type != "audio/wav" || m.Start == nil || m.Duration == nil || len(d) < 44 || string(d[:4]) != "RIFF" || string(d[8:16]) != "WAVEfmt " ||
		binary.LittleEndian.Uint16(d[22:]) != 1 || binary.LittleEndian.Uint32(d[24:]) != 16000 || binary.LittleEndian.Uint16(d[34:]) != 16 ||
		int(binary.LittleEndian.Uint32(d[40:])) != len(d)-44 || int(binary.LittleEndian.Uint32(d[4:])) != len(d)-8 {
		t.Fatalf("media %s start %v duration %v, %d bytes", m.Type, m.Start, m.Duration, len(d))
	}
	secs := float64(len(d)-44) / bytesPerSecond
	if *m.Start < start-0.01 || *m.Start > start+0.01 || *m.Duration < duration-0.01 || *m.Duration > duration+0.01 || secs != *m.Duration {
		t.Errorf("clip at %v for %v (%v s of samples), want %v for %v", *m.Start, *m.Duration, secs, start, duration)
	}
	if len(d) > 44+provider.MaxAudioSeconds*bytesPerSecond {
		t.Errorf("clip of %d bytes", len(d))
	}
}

func TestProviderGolden(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/provider", ".json", func(t *testing.T, name string, answer []byte) (any, error) {
		f := &speechProvider{reply: func(int, clipRequest) (int, string) { return 0, string(answer) }}
		srv := f.start(t)
		o := runProvider(t, providerRegistry(t, providerEnv(srv.URL, "SPEECH_API_LANGUAGE", "en")), "testdata/ill-disposed.wav")
		reqs := f.all()
		if len(reqs) != 1 {
			t.Fatalf("%d requests", len(reqs))
		}
		checkClip(t, reqs[0], 0, 2.99)
		if reqs[0].Input.Language != "en" {
			t.Errorf("language hint %q", reqs[0].Input.Language)
		}
		if o.Err != nil {
			return nil, o.Err
		}
		for _, c := range o.Captions {
			if c.Source != "speech" || c.Format != "speech" {
				t.Errorf("caption %+v: not stored as speech_to_text's", c)
			}
		}
		var data map[string]any
		if err := json.Unmarshal(o.JSON, &data); err != nil {
			t.Fatal(err)
		}
		if e, _ := data["engine"].(string); e == strings.TrimPrefix(srv.URL, "http://") {
			data["engine"] = "provider.test" // the test server's address
		}
		return map[string]any{"data": data, "captions": o.Captions}, nil
	})
}

// twoVoices is 26.3 s: ill-disposed.wav, 20 s of silence, amiable.wav.
var twoVoices = func(t testing.TB) string {
	return clips.File(t, "two-voices.wav", func(t testing.TB, p string) {
		extractortest.FFmpeg(t, "-i", "testdata/ill-disposed.wav", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono:d=20",
			"-i", "testdata/amiable.wav", "-filter_complex", "[0][1][2]concat=n=3:v=0:a=1", "-ar", "16000", "-ac", "1", p)
	})
}

// The audio is sent clip after clip; a silent clip is not sent; the words
// come back at item times, and no cue spans two clips.
func TestProviderClips(t *testing.T) {
	t.Parallel()
	f := &speechProvider{reply: func(n int, r clipRequest) (int, string) {
		return 0, `{"language":"en","words":[{"text":"clip","start":0.5,"end":0.9,"confidence":0.8},
			{"text":"end","start":` + jsonNum(*r.Input.Media[0].Duration-0.4) + `,"end":` + jsonNum(*r.Input.Media[0].Duration) + `}]}`
	}}
	srv := f.start(t)
	path := twoVoices(t)
	o := runProvider(t, providerRegistry(t, providerEnv(srv.URL)), path)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	reqs := f.all()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the clip from 10 s to 20 s is silent)", len(reqs))
	}
	checkClip(t, reqs[0], 0, 10)
	checkClip(t, reqs[1], 20, 6.28)
	if reqs[0].Input.Language != "" {
		t.Errorf("language hint %q without SPEECH_API_LANGUAGE", reqs[0].Input.Language)
	}
	cues := o.Captions[0].Cues
	if len(cues) != 4 || cues[0].Start != 0.5 || cues[1].Start != 9.6 || cues[1].End != 10 || cues[2].Start != 20.5 || cues[3].End < 26.27 {
		t.Errorf("cues %+v", cues)
	}
	d := o.Data
	if d["complete"] != true || d["words"] != 4 || d["seconds"].(float64) < 26.27 || d["language"] != "en" || d["transcript"] != "clip\nend\nclip\nend" {
		t.Errorf("data %s", o.JSON)
	}

	// SPEECH_MAX_SECONDS bounds what is decoded, and so what is sent.
	f2 := &speechProvider{reply: f.reply}
	o = runProvider(t, providerRegistry(t, providerEnv(f2.start(t).URL, "SPEECH_MAX_SECONDS", "15")), path)
	if o.Err != nil || len(f2.all()) != 1 || o.Data["stopped_by"] != "max_seconds" || o.Data["seconds"] != 15.0 {
		t.Errorf("bounded: %v, %d requests, %s", o.Err, len(f2.all()), o.JSON)
	}
}

func jsonNum(v float64) string { b, _ := json.Marshal(v); return string(b) }

// When the time limit draws near no further clip is sent, and the words
// of the clips sent are kept.
func TestProviderTimeLimitKeepsWhatWasHeard(t *testing.T) {
	t.Parallel()
	f := &speechProvider{reply: func(n int, r clipRequest) (int, string) {
		if n == 1 {
			time.Sleep(2500 * time.Millisecond) // the provider is slow: the stop (2 s in) passes
		}
		return 0, `{"words":[{"text":"heard","start":1,"end":1.5}]}`
	}}
	reg := providerRegistry(t, providerEnv(f.start(t).URL))
	// 12 s before the deadline the stop is 2 s away (a reserve of 10 s).
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Second)
	defer cancel()
	in := extractortest.Input(t, twoVoices(t))
	in.MIME = "audio/x-wav"
	o := extractors.RunOne(ctx, reg, ProviderName, in, time.Minute)
	switch {
	case o.Err != nil:
		// Only a machine too busy to decode the audio in 2 s.
		if !extractors.IsTransient(o.Err) {
			t.Fatalf("err %v", o.Err)
		}
	case len(f.all()) != 1 || o.Data["stopped_by"] != "time_limit" || o.Data["complete"] != false || o.Data["words"] != 1 || o.Data["seconds"] != 10.0:
		t.Fatalf("%d requests, data %s", len(f.all()), o.JSON)
	}
}

func TestProviderRefusals(t *testing.T) {
	t.Parallel()
	const wav = "testdata/ill-disposed.wav"
	for _, c := range []struct {
		name      string
		reply     func(n int) (int, string)
		calls     int
		transient bool
		want      string
	}{
		{"key refused", func(int) (int, string) { return 401, `{"error":"invalid key"}` }, 1, false, "status 401 (key refused): invalid key"},
		{"forbidden", func(int) (int, string) { return 403, "" }, 1, false, "key refused"},
		{"busy then answers", func(n int) (int, string) {
			if n == 1 {
				return 429, ""
			}
			return 0, `{"words":[]}`
		}, 2, false, ""},
		{"down", func(int) (int, string) { return 502, "" }, provider.DefaultAttempts, true, "status 502"},
		{"oversized", func(int) (int, string) { return 0, `{"words":[],"x":"` + strings.Repeat("a", 1<<20) + `"}` }, 1, false, "answer over"},
		{"too many words", func(int) (int, string) {
			return 0, `{"words":[` + strings.Repeat(`{"text":"a","start":0,"end":0},`, maxAnswerWords) + `{"text":"a","start":0,"end":0}]}`
		}, 1, false, "words for 3 s of audio"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &speechProvider{reply: func(n int, _ clipRequest) (int, string) { return c.reply(n) }}
			o := runProvider(t, providerRegistry(t, providerEnv(f.start(t).URL)), wav)
			switch {
			case len(f.all()) != c.calls:
				t.Errorf("%d calls, want %d", len(f.all()), c.calls)
			case c.want == "" && o.Err != nil:
				t.Errorf("err %v", o.Err)
			case c.want != "" && (o.Err == nil || extractors.IsTransient(o.Err) != c.transient || !strings.Contains(o.Err.Error(), c.want)):
				t.Errorf("err %v, want %q (transient %v)", o.Err, c.want, c.transient)
			case o.Err != nil && strings.Contains(o.Err.Error(), "skey"):
				t.Errorf("the key leaked: %v", o.Err)
			}
		})
	}
}

// Without its settings the extractor is not available and never reaches a
// provider; bad settings make it unavailable with their reason.
func TestProviderUnavailable(t *testing.T) {
	t.Parallel()
	f := &speechProvider{reply: func(int, clipRequest) (int, string) { return 0, `{}` }}
	url := f.start(t).URL
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "not available: speech provider setting SPEECH_API_URL, SPEECH_API_KEY not set"},
		{map[string]string{"SPEECH_API_URL": url}, "not available: speech provider setting SPEECH_API_KEY not set"},
		{map[string]string{"SPEECH_API_KEY": "k"}, "not available: speech provider setting SPEECH_API_URL not set"},
		{providerEnv(url, "SPEECH_API_CLIP_SECONDS", "5"), `not available: setting SPEECH_API_CLIP_SECONDS = "5": want a whole number from`},
		{providerEnv(url, "SPEECH_API_LANGUAGE", "English"), "SPEECH_API_LANGUAGE \"English\""},
		{providerEnv(url, "SPEECH_MAX_SECONDS", "0"), `not available: setting SPEECH_MAX_SECONDS = "0": want a number from 1 to 86400`},
		{providerEnv("ftp://" + strings.TrimPrefix(url, "http://")), "absolute http or https URL"},
	} {
		o := runProvider(t, providerRegistry(t, c.env), "testdata/front-center.wav")
		if !errors.Is(o.Err, extractors.ErrUnavailable) || !strings.Contains(o.Err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.env, o.Err, c.want)
		}
	}
	if n := len(f.all()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestSilentAndWAV(t *testing.T) {
	t.Parallel()
	pcm := make([]byte, 8)
	binary.LittleEndian.PutUint16(pcm[2:], uint16(0xffff&-32)) // -32: still silence
	if !silent(pcm) {
		t.Error("-60 dBFS is sound")
	}
	binary.LittleEndian.PutUint16(pcm[6:], 33)
	if silent(pcm) {
		t.Error("33 is silence")
	}
	w := wav(pcm)
	if len(w) != 52 || string(w[36:40]) != "data" || binary.LittleEndian.Uint32(w[40:]) != 8 || binary.LittleEndian.Uint32(w[28:]) != 32000 {
		t.Errorf("header % x", w[:44])
	}
}

func TestProviderSuite(t *testing.T) {
	t.Parallel()
	f := &speechProvider{reply: func(int, clipRequest) (int, string) {
		return 0, `{"language":"en","words":[{"text":"front","start":0.2,"end":0.5},{"text":"center","start":0.6,"end":1}]}`
	}}
	outs := extractortest.Suite(t, providerRegistry(t, providerEnv(f.start(t).URL)), []string{"testdata/front-center.wav", filepath.Join("..", "testdata", "sample.mov")})
	if o := outs[ProviderName]["front-center.wav"]; o.Err != nil || len(o.Captions) != 1 || o.Captions[0].Cues[0].Text != "front center" {
		t.Errorf("front-center.wav: %v %+v", o.Err, o.Captions)
	}
}
