package broadcast

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// TestParseLogGolden parses ffmpeg logs recorded from the pass's filter
// graph on the sample files and the test clip (testdata/logs); the
// .golden files were checked line by line against the logs.
func TestParseLogGolden(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/logs", ".log", func(t *testing.T, name string, in []byte) (any, error) {
		return reportView(ParseLog(in)), nil
	})
}

// reportView is a Report as JSON can hold it (infinities and missing
// values as text).
func reportView(r *Report) map[string]any {
	num := func(f float64) any {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nonFinite(f)
		}
		return f
	}
	v := map[string]any{"black": r.Black, "silence": r.Silence, "end": r.End, "dropped": r.Dropped}
	if l := r.Loudness; l != nil {
		v["loudness"] = map[string]any{"I": num(l.Integrated), "I_threshold": num(l.IntegratedThreshold), "LRA": num(l.Range),
			"LRA_threshold": num(l.RangeThreshold), "LRA_low": num(l.RangeLow), "LRA_high": num(l.RangeHigh),
			"sample_peak": num(l.SamplePeak), "true_peak": num(l.TruePeak)}
	}
	if vol := r.Volume; vol != nil {
		v["volume"] = map[string]any{"samples": vol.Samples, "mean": num(vol.Mean), "max": num(vol.Max), "histogram": vol.Histogram}
	}
	return v
}

func nonFinite(f float64) string {
	switch {
	case math.IsNaN(f):
		return "missing"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsInf(f, 1):
		return "+inf"
	}
	return ""
}

const sampleLog = "Input #0, wav, from 'x.wav':\n" +
	"[Parsed_volumedetect_6 @ 0x561b497dabc0] n_samples: 0\n" +
	"[Parsed_ebur128_4 @ 0x561b497bfe40] Summary:\n\n  Integrated loudness:\n    I:         -70.0 LUFS\n\n  True peak:\n    Peak:       -inf dBFS\n" +
	"Stream mapping:\n" +
	"[silencedetect @ 0x561b49916f80] silence_start: -0.02\n" +
	"[blackdetect @ 0x561b49913c00] black_start:2 black_end:4 black_duration:2\n" +
	"[silencedetect @ 0x561b49916f80] silence_end: 5.99827 | silence_duration: 3.99742\n" +
	"frame=   10 fps=0.0 q=-0.0 size=N/A time=00:00:02.50 bitrate=N/A\r" +
	"frame=   44 fps=0.0 q=-0.0 Lsize=     594kB time=00:00:11.00 bitrate= 442.0kbits/s speed= 136x    \n" +
	"[Parsed_volumedetect_6 @ 0x561b499157c0] n_samples: 528384\n" +
	"[Parsed_volumedetect_6 @ 0x561b499157c0] mean_volume: -20.3 dB\n" +
	"[Parsed_volumedetect_6 @ 0x561b499157c0] max_volume: -12.0 dB\n" +
	"[Parsed_volumedetect_6 @ 0x561b499157c0] histogram_12db: 41823\n" +
	"[silencedetect @ 0x561b49916f80] silence_end: 11.008 | silence_duration: 2.00644\n" +
	"[Parsed_ebur128_4 @ 0x561b49917680] Summary:\n\n  Integrated loudness:\n    I:         -17.7 LUFS\n    Threshold: -27.9 LUFS\n\n" +
	"  Loudness range:\n    LRA:        14.0 LU\n    Threshold: -39.5 LUFS\n    LRA low:   -30.1 LUFS\n    LRA high:  -16.1 LUFS\n\n" +
	"  Sample peak:\n    Peak:      -12.0 dBFS\n\n  True peak:\n    Peak:      -11.9 dBFS"

func TestParseLog(t *testing.T) {
	t.Parallel()
	r := ParseLog([]byte(sampleLog))
	if !reflect.DeepEqual(r.Black, []Range{{2, 4}}) {
		t.Errorf("black %v", r.Black)
	}
	// A negative start is 0; an end without a start takes its duration.
	if !reflect.DeepEqual(r.Silence, []Range{{0, 5.99827}, {11.008 - 2.00644, 11.008}}) {
		t.Errorf("silence %v", r.Silence)
	}
	if r.End != 11 {
		t.Errorf("end %v", r.End)
	}
	// The last summary counts, not the empty one of the first graph.
	want := Loudness{-17.7, -27.9, 14, -39.5, -30.1, -16.1, -12, -11.9}
	if r.Loudness == nil || *r.Loudness != want {
		t.Errorf("loudness %+v", r.Loudness)
	}
	if v := r.Volume; v == nil || v.Samples != 528384 || v.Mean != -20.3 || v.Max != -12 || !reflect.DeepEqual(v.Histogram, []Bin{{-12, 41823}}) {
		t.Errorf("volume %+v", r.Volume)
	}
	// Fed in any pieces, the parser reads the same.
	for _, size := range []int{1, 3, 7, 64} {
		p := newLogParser()
		for b := []byte(sampleLog); len(b) > 0; {
			n := min(size, len(b))
			p.Write(b[:n])
			b = b[n:]
		}
		if got := p.finish(); !reflect.DeepEqual(reportView(got), reportView(r)) {
			t.Errorf("pieces of %d: %+v", size, got)
		}
	}
}

func TestParseLogBounds(t *testing.T) {
	t.Parallel()
	// A silence that never ends, an over-long line, lines that only look
	// like filter lines, and events beyond the cap.
	var b bytes.Buffer
	b.WriteString("[silencedetect @ 0x1] silence_start: 3\n")
	b.WriteString("[blackdetect @ 0x1] black_start:1 black_end:" + strings.Repeat("9", maxLine) + "\n")
	b.WriteString("[blackdetect] black_start:1 black_end:2\n[blackdetect @ nowhere] black_start:1 black_end:2\n")
	b.WriteString("[blackdetect @ 0x1] black_start:5 black_end:4\n[blackdetect @ 0x1] black_start:NaN black_end:4\n")
	b.WriteString("[Parsed_volumedetect_0 @ 0x1] histogram_3db: 5\n[Parsed_volumedetect_0 @ 0x1] mean_volume: -inf dB\n")
	b.WriteString("size=N/A time=-00:00:01.00 bitrate=N/A\n")
	for i := 0; i < maxEvents+5; i++ {
		b.WriteString("[blackdetect @ 0x1] black_start:1 black_end:2 black_duration:1\n")
	}
	r := ParseLog(b.Bytes())
	if len(r.Black) != maxEvents || r.Dropped != 5 || len(r.Silence) != 0 || r.Volume != nil || r.End != 0 {
		t.Errorf("black %d dropped %d silence %v volume %v end %v", len(r.Black), r.Dropped, r.Silence, r.Volume, r.End)
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add([]byte(sampleLog), 5)
	f.Add([]byte("[Parsed_ebur128_0 @ 0x1] Summary:\n  True peak:\n    Peak: 1e400 dBFS\n    Peak: -inf dBFS\r"), 2)
	f.Add([]byte("[Parsed_volumedetect_0 @ 0x1] n_samples: 3\n[Parsed_volumedetect_0 @ 0x1] histogram_-1db: 9\n"), 1)
	f.Fuzz(func(t *testing.T, b []byte, split int) {
		r := ParseLog(b)
		for _, list := range [][]Range{r.Black, r.Silence} {
			if len(list) > maxEvents {
				t.Fatalf("%d ranges", len(list))
			}
			for _, x := range list {
				if math.IsNaN(x.Start) || math.IsInf(x.End, 0) || x.Start < 0 || x.End < x.Start {
					t.Fatalf("range %v", x)
				}
			}
		}
		if r.End < 0 || math.IsNaN(r.End) || math.IsInf(r.End, 0) {
			t.Fatalf("end %v", r.End)
		}
		if v := r.Volume; v != nil && (len(v.Histogram) > maxBins || v.Samples < 0) {
			t.Fatalf("volume %+v", v)
		}
		// Split anywhere, the log reads the same.
		if len(b) > 0 {
			k := (split%len(b) + len(b)) % len(b)
			p := newLogParser()
			p.Write(b[:k])
			p.Write(b[k:])
			if got := p.finish(); !reflect.DeepEqual(reportView(got), reportView(r)) {
				t.Fatalf("split at %d: %+v, whole: %+v", k, reportView(got), reportView(r))
			}
		}
	})
}
