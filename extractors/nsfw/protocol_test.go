package nsfw

import (
	"math"
	"path/filepath"
	"testing"
)

func TestParseScores(t *testing.T) {
	s, err := ParseScores(map[string]float64{"drawing": 0.1, "hentai": 0.05, "neutral": 0.5, "porn": 0.25, "sexy": 0.1})
	if err != nil || s["porn"] != 0.25 || math.Abs(s.Unsafe()-0.4) > 1e-9 || s.Top() != "neutral" {
		t.Fatalf("%v, %v", s, err)
	}
	for _, bad := range []map[string]float64{
		nil, {},
		{"drawing": 0.1, "hentai": 0.05, "neutral": 0.5, "porn": 0.25},
		{"drawing": 0.1, "hentai": 0.05, "neutral": 0.5, "porn": 0.25, "nude": 0.1},
		{"drawing": 0.1, "hentai": 0.05, "neutral": 0.5, "porn": 0.25, "sexy": 0.5},
		{"drawing": -0.1, "hentai": 0.05, "neutral": 0.7, "porn": 0.25, "sexy": 0.1},
		{"drawing": math.NaN(), "hentai": 0.05, "neutral": 0.6, "porn": 0.25, "sexy": 0.1},
	} {
		if _, err := ParseScores(bad); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

func TestParseMainFrames(t *testing.T) {
	raw := `{"frames":[{"time":2,"path":"frames/b.jpg"},{"time":1,"path":"frames/a.jpg"},{"time":-1,"path":"x.jpg"},
		{"time":3,"path":"../etc/passwd"},{"time":4,"path":"/abs.jpg"},{"time":5,"path":""}]}`
	got, err := ParseMainFrames([]byte(raw))
	if err != nil || len(got) != 2 || got[0].Path != "frames/a.jpg" || got[1].Time != 2 {
		t.Fatalf("%v, %v", got, err)
	}
	if _, err := ParseMainFrames([]byte(`{"frames":3}`)); err == nil {
		t.Error("frames of another type accepted")
	}
}

func TestSampleInterval(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want int
	}{{0, 1}, {-5, 1}, {math.NaN(), 1}, {math.Inf(1), 1}, {6, 1}, {300, 1}, {301, 2}, {7200, 24}} {
		if got := SampleInterval(c.d); got != c.want {
			t.Errorf("SampleInterval(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

// The answers of the sidecar are untrusted bytes: parsing never panics,
// and what it accepts is five probabilities adding up to 1.
func FuzzParseMainFrames(f *testing.F) {
	f.Add([]byte(`{"frames":[{"time":1.5,"path":"frames/000001.jpg","width":320,"height":240,"reason":"scene","score":0.4}]}`))
	f.Add([]byte(`{"frames":[{"time":1e400,"path":"a"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseMainFrames(b)
		if err != nil {
			return
		}
		if len(got) > maxFrames {
			t.Fatalf("%d frames", len(got))
		}
		for i, fr := range got {
			if fr.Time < 0 || math.IsNaN(fr.Time) || !filepath.IsLocal(filepath.FromSlash(fr.Path)) || (i > 0 && got[i-1].Time > fr.Time) {
				t.Fatalf("frame %d: %+v", i, fr)
			}
		}
	})
}
