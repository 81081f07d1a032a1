package nsfw

import (
	"bufio"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

func TestParseAnswer(t *testing.T) {
	good := `{"id":"7","scores":{"drawing":0.1,"hentai":0.05,"neutral":0.5,"porn":0.25,"sexy":0.1}}`
	s, err := ParseAnswer([]byte(good), "7")
	if err != nil || s["porn"] != 0.25 || math.Abs(s.Unsafe()-0.4) > 1e-9 || s.Top() != "neutral" {
		t.Fatalf("%v, %v", s, err)
	}
	var refused *errAnswer
	if _, err := ParseAnswer([]byte(`{"id":"7","error":"PPM of 99999x1 pixels"}`), "7"); !errors.As(err, &refused) {
		t.Errorf("refusal: %v", err)
	}
	for _, bad := range []string{
		``, `null`, `[]`, `{"id":"8","scores":{}}`, `{"id":null,"error":"x"}`, `{"scores":{}}`,
		`{"id":"7","scores":{"drawing":0.1,"hentai":0.05,"neutral":0.5,"porn":0.25}}`,
		`{"id":"7","scores":{"drawing":0.1,"hentai":0.05,"neutral":0.5,"porn":0.25,"nude":0.1}}`,
		`{"id":"7","scores":{"drawing":0.1,"hentai":0.05,"neutral":0.5,"porn":0.25,"sexy":0.5}}`,
		`{"id":"7","scores":{"drawing":-0.1,"hentai":0.05,"neutral":0.7,"porn":0.25,"sexy":0.1}}`,
		`{"id":"7","scores":{"drawing":"0.1","hentai":0.05,"neutral":0.5,"porn":0.25,"sexy":0.1}}`,
	} {
		if _, err := ParseAnswer([]byte(bad), "7"); err == nil || errors.As(err, &refused) {
			t.Errorf("%s: err = %v, want out of step", bad, err)
		}
	}
}

func TestParseReady(t *testing.T) {
	if r, err := ParseReady([]byte(`{"ready":true,"model":"MobileNetV2","size":224,"backend":"wasm"}`), "MobileNetV2"); err != nil || r.Size != 224 {
		t.Fatalf("%v, %v", r, err)
	}
	for _, bad := range []string{`{"ready":false,"model":"MobileNetV2","size":224}`, `{"ready":true,"model":"InceptionV3","size":299}`,
		`{"ready":true,"model":"MobileNetV2","size":100000}`, `hello`} {
		if _, err := ParseReady([]byte(bad), "MobileNetV2"); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestReadLineBounded(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 100)+"\nend"), 16)
	if l, err := readLine(r, 50); err != nil || string(l) != "short" {
		t.Fatalf("%q, %v", l, err)
	}
	if _, err := readLine(r, 50); !errors.Is(err, extractors.ErrOutputLimit) {
		t.Errorf("long line: %v", err)
	}
	r = bufio.NewReader(strings.NewReader("no newline"))
	if _, err := readLine(r, 50); err == nil || !strings.Contains(err.Error(), "output ended") {
		t.Errorf("unended line: %v", err)
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
func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(`{"id":"1","scores":{"drawing":0.1,"hentai":0.05,"neutral":0.5,"porn":0.25,"sexy":0.1}}`))
	f.Add([]byte(`{"id":"1","error":"no"}`))
	f.Add([]byte(`{"id":1}`))
	f.Add([]byte(`{"id":"1","scores":{"drawing":1e308,"hentai":-1e308}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseAnswer(b, "1")
		if err != nil {
			return
		}
		var sum float64
		for _, c := range Categories {
			v, ok := s[c]
			if !ok || v < 0 || v > 1 {
				t.Fatalf("score %s %v", c, v)
			}
			sum += v
		}
		if u := s.Unsafe(); u < 0 || u > 1 || math.Abs(sum-1) > 0.011 {
			t.Fatalf("unsafe %v, sum %v", u, sum)
		}
	})
}

func FuzzParseReady(f *testing.F) {
	f.Add([]byte(`{"ready":true,"model":"MobileNetV2","size":224,"backend":"wasm"}`))
	f.Add([]byte(`{"ready":true,"model":"MobileNetV2","size":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReady(b, "MobileNetV2")
		if err == nil && (r.Size < minSide || r.Size > maxSide || len(r.Backend) > 40) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

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

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("a\nb\n"), 4)
	f.Add([]byte("\n\n\n"), 0)
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if limit < 0 || limit > 1<<16 {
			return
		}
		r := bufio.NewReaderSize(strings.NewReader(string(b)), 16)
		for range 100 {
			l, err := readLine(r, limit)
			if err != nil {
				return
			}
			if len(l) > limit || strings.ContainsRune(string(l), '\n') {
				t.Fatalf("line %q over %d", l, limit)
			}
		}
	})
}
