package video

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// goldenFrame is a printed frame as the golden files hold it (JSON has no
// NaN: a frame without a time has none).
type goldenFrame struct {
	Time  *float64 `json:"time"`
	Score float64  `json:"score"`
}

// Metadata files printed by ffmpeg 5.1 in a real run of the decoding pass
// (scenes-*: the red/blue/pattern clip of TestMainFramesAtSceneChanges;
// other-keys: a frame carrying other metadata) and odd.txt written by hand
// (no time, negative, overflowing and imprecise times, scores out of range
// or malformed, lines before the first frame). The .golden files were
// checked against the inputs by reading them.
func TestScanPrintedGolden(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/printed", ".txt", func(t *testing.T, name string, in []byte) (any, error) {
		out := []goldenFrame{}
		err := scanPrinted(bytes.NewReader(in), func(p printedFrame) error {
			g := goldenFrame{Score: p.Score}
			if !math.IsNaN(p.Time) {
				g.Time = &p.Time
			}
			out = append(out, g)
			return nil
		})
		return out, err
	})
}

func TestScanPrintedRefusesLongLines(t *testing.T) {
	t.Parallel()
	long := "frame:0 pts:0 pts_time:0\n" + strings.Repeat("x", maxPrintedLine+1) + "\n"
	if err := scanPrinted(strings.NewReader(long), func(printedFrame) error { return nil }); err == nil {
		t.Error("a line over the bound was read")
	}
}

func TestFrameMillis(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]int64{"000012480.jpg": 12480, "000000000.jpg": 0, "1000000000.jpg": 1000000000} {
		if got, ok := frameMillis(name); !ok || got != want {
			t.Errorf("%s: %d %v", name, got, ok)
		}
	}
	for _, name := range []string{"12480.jpg", "00001248a.jpg", "000012480.png", "-00012480.jpg", "+00012480.jpg", ".jpg", "0000124800000000.jpg"} {
		if _, ok := frameMillis(name); ok {
			t.Errorf("%s accepted", name)
		}
	}
}

func FuzzScanPrinted(f *testing.F) {
	f.Add([]byte("frame:0    pts:25600   pts_time:2\nlavfi.scene_score=0.400000\n"))
	f.Add([]byte("frame:0 pts:NOPTS pts_time:NOPTS\ntap=1\nframe:1\n"))
	f.Add([]byte("lavfi.scene_score=1\n\n\nframe:\npts_time:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		_ = scanPrinted(bytes.NewReader(b), func(p printedFrame) error {
			n++
			if !math.IsNaN(p.Time) && (p.Time < 0 || math.IsInf(p.Time, 0)) {
				t.Fatalf("time %v", p.Time)
			}
			if p.Score < 0 || p.Score > 1 || math.IsNaN(p.Score) {
				t.Fatalf("score %v", p.Score)
			}
			return nil
		})
		if n > bytes.Count(b, []byte("frame:")) {
			t.Fatalf("%d frames from %d frame lines", n, bytes.Count(b, []byte("frame:")))
		}
	})
}

func FuzzFrameMillis(f *testing.F) {
	f.Add("000012480.jpg")
	f.Add("999999999999.jpg")
	f.Add("0000-1248.jpg")
	f.Fuzz(func(t *testing.T, name string) {
		ms, ok := frameMillis(name)
		if ok && (ms < 0 || !strings.HasSuffix(name, ".jpg")) {
			t.Fatalf("%q: %d", name, ms)
		}
	})
}
