package places

import (
	"context"
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
)

// weatherProvider is a fake weather provider: it answers with answer and
// records the requests.
type weatherProvider struct {
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
	status   int
	answer   string
}

func (p *weatherProvider) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(raw, &body)
		p.mu.Lock()
		p.requests = append(p.requests, body)
		p.auth = append(p.auth, r.URL.Path+" "+r.Header.Get("Authorization"))
		status, answer := p.status, p.answer
		p.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
		}
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func weatherPrior(lat, lon float64, created string) map[string]json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"gps": map[string]any{"latitude": lat, "longitude": lon}, "created": created})
	return map[string]json.RawMessage{"exiv2": raw}
}

func TestWeather(t *testing.T) {
	t.Parallel()
	p := &weatherProvider{answer: `{"temperature_c": 18.54, "conditions": "light rain", "wind": {"speed_kmh": 12, "direction_deg": 270}, "source": "station LFPB"}`}
	srv := p.start(t)
	reg := registry(t, map[string]string{"WEATHER_API_URL": srv.URL + "/api", "WEATHER_API_KEY": "wkey"}, "weather")
	path := filepath.Join("testdata", "beijing-sample1.jpg")
	o := run(t, reg, "weather", path, weatherPrior(48.8584, 2.2945, "2024-05-01T14:03:00+02:00"))
	d := extractortest.Data(t, o)
	want := `{"conditions":"light rain","source":"station LFPB","temperature_c":18.5,"time":"2024-05-01T14:03:00+02:00","wind":{"direction_deg":270,"speed_kmh":12}}`
	if string(o.JSON) != want {
		t.Errorf("data %s\nwant %s", o.JSON, want)
	}
	_ = d
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.requests) != 1 || p.auth[0] != "/api/weather Bearer wkey" {
		t.Fatalf("requests %v %v", p.requests, p.auth)
	}
	in, _ := p.requests[0]["input"].(map[string]any)
	if in["latitude"] != 48.8584 || in["longitude"] != 2.2945 || in["time"] != "2024-05-01T14:03:00+02:00" {
		t.Errorf("request input %v", in)
	}
}

func TestWeatherSourceDefaultsToHost(t *testing.T) {
	t.Parallel()
	p := &weatherProvider{answer: `{"temperature_c": -3}`}
	srv := p.start(t)
	reg := registry(t, map[string]string{"WEATHER_API_URL": srv.URL, "WEATHER_API_KEY": "wkey"}, "weather")
	path := filepath.Join("testdata", "stockholm-has-lens-info.jpg")
	o := run(t, reg, "weather", path, weatherPrior(59.33, 18.06, "2014-09-01T15:03:47Z"))
	d := extractortest.Data(t, o)
	if d["source"] != strings.TrimPrefix(srv.URL, "http://") || d["temperature_c"] != -3.0 {
		t.Errorf("%s", o.JSON)
	}
}

func TestWeatherUnavailableWithoutKey(t *testing.T) {
	t.Parallel()
	reg := registry(t, map[string]string{"WEATHER_API_URL": "https://weather.example"}, "weather")
	ok, reason := reg.Available("weather")
	if ok || reason != "weather provider setting WEATHER_API_KEY not set" {
		t.Errorf("available %v: %q", ok, reason)
	}
	o := extractors.RunOne(context.Background(), reg, "weather", &extractors.Input{Name: "x.jpg", Path: "/dev/null"}, time.Minute)
	if o.Err == nil || !strings.HasPrefix(o.Err.Error(), "not available: ") {
		t.Errorf("run: %v", o.Err)
	}
	if s := reg.Settings("weather"); s["key"] != "" || s["url"] != "https://weather.example" {
		t.Errorf("settings %v", s)
	}
}

func TestWeatherRefusals(t *testing.T) {
	t.Parallel()
	p := &weatherProvider{status: 503, answer: `{"error":"maintenance"}`}
	srv := p.start(t)
	reg := registry(t, map[string]string{"WEATHER_API_URL": srv.URL, "WEATHER_API_KEY": "wkey"}, "weather")
	path := filepath.Join("testdata", "beijing-sample1.jpg")
	run := func(prior map[string]json.RawMessage) error {
		return run(t, reg, "weather", path, prior).Err
	}
	if err := run(weatherPrior(39.9, 116.4, "2003-11-23T18:07:37Z")); !extractors.IsTransient(err) || !strings.Contains(err.Error(), "maintenance") {
		t.Errorf("provider down: %v", err)
	}
	if err := run(weatherPrior(39.9, 116.4, "")); !errors.Is(err, extractors.ErrUnsupported) {
		t.Errorf("no time: %v", err)
	}
	if err := run(nil); !errors.Is(err, extractors.ErrUnsupported) {
		t.Errorf("no position: %v", err)
	}
	p.mu.Lock()
	p.status, p.answer = 200, `{"temperature_c": 500}`
	p.mu.Unlock()
	if err := run(weatherPrior(39.9, 116.4, "2003-11-23T18:07:37Z")); err == nil || extractors.IsTransient(err) {
		t.Errorf("implausible answer: %v", err)
	}
}

func TestParseWeatherGolden(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/weather", ".json", func(t *testing.T, name string, in []byte) (any, error) {
		return ParseWeather(in)
	})
}

func FuzzParseWeather(f *testing.F) {
	for _, s := range []string{`{"temperature_c": 18.54, "conditions": "light rain", "wind": {"speed_kmh": 12, "direction_deg": 270}, "source": "x"}`,
		`{"temperature_c": -3}`, `{"wind": {}}`, `[]`, `{"conditions": "\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseWeather(b)
		if err != nil {
			return
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatal(err)
		}
	})
}
