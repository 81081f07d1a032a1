package broadcast

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// tolerance is what the issue asks of the time ranges (seconds) and of
// loudness and peaks (LU, dB).
const tolerance = 0.5

// checkRanges compares a stored list of ranges with the expected ones.
func checkRanges(t *testing.T, what string, got any, want []Range) {
	t.Helper()
	list, _ := got.([]any)
	if len(list) != len(want) {
		t.Errorf("%s: %v, want %v", what, got, want)
		return
	}
	for i, w := range want {
		r := list[i].(map[string]any)
		s, e, d := r["start"].(float64), r["end"].(float64), r["duration"].(float64)
		if math.Abs(s-w.Start) > tolerance || math.Abs(e-w.End) > tolerance || math.Abs(d-(e-s)) > 0.002 {
			t.Errorf("%s[%d] = %v, want %v", what, i, r, w)
		}
	}
}

func near(t *testing.T, what string, got any, want float64) {
	t.Helper()
	g, ok := got.(float64)
	if !ok || math.Abs(g-want) > tolerance {
		t.Errorf("%s = %v, want %v ± %v", what, got, want, tolerance)
	}
}

// bare runs ffmpeg itself on path with one audio filter and returns its
// log: the reference the analyses are held to.
func bare(t *testing.T, path, filter string) string {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-i", path, "-map", "0:a:0", "-af", filter, "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("bare ffmpeg: %v %s", err, out)
	}
	return string(out)
}

// lastNumber is the number after the last match of label in a bare log.
func lastNumber(t *testing.T, log, label string) float64 {
	t.Helper()
	all := regexp.MustCompile(regexp.QuoteMeta(label)+`\s*(-?[0-9.]+|-inf)`).FindAllStringSubmatch(log, -1)
	if len(all) == 0 {
		t.Fatalf("no %q in %s", label, log)
	}
	f, err := strconv.ParseFloat(all[len(all)-1][1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestQCClip is the test: a programme with known bars, black,
// slate, silence and tone stretches, every analysis run in one harvest.
func TestQCClip(t *testing.T) {
	t.Parallel()
	clip := qcClip(t)
	outs := extractortest.Harvest(t, registry(t), extractortest.Input(t, clip), names...)

	black := extractortest.Data(t, outs["black_scenes"])
	checkRanges(t, "black", black["scenes"], []Range{{2, 4}, {9, 11}})
	near(t, "black total", black["total_duration"], 4)
	near(t, "analysed", black["analysed_duration"], 11)
	if black["count"] != 2.0 {
		t.Errorf("black count %v", black["count"])
	}

	silence := extractortest.Data(t, outs["vendor_silence"])
	checkRanges(t, "silence", silence["silences"], []Range{{2, 6}, {9, 11}})
	near(t, "silence total", silence["total_duration"], 6)

	bars := extractortest.Data(t, outs["vendor_color_bars"])
	checkRanges(t, "bars", bars["bars"], []Range{{0, 2}})
	if list, _ := bars["bars"].([]any); len(list) == 1 && list[0].(map[string]any)["pattern"] != "smpte" {
		t.Errorf("bars pattern %v", list[0])
	}

	se := extractortest.Data(t, outs["vendor_start_end"])
	if se["found"] != true {
		t.Fatalf("start/end: %v", se)
	}
	near(t, "programme start", se["start"], 6)
	near(t, "programme end", se["end"], 9)
	near(t, "programme duration", se["duration"], 3)
	var kinds []string
	for _, h := range se["head"].([]any) {
		kinds = append(kinds, h.(map[string]any)["kind"].(string))
	}
	if strings.Join(kinds, ",") != "bars,black,slate" {
		t.Errorf("head %v", se["head"])
	}
	checkRanges(t, "head", se["head"], []Range{{0, 2}, {2, 4}, {4, 6}})
	checkRanges(t, "tail", se["tail"], []Range{{9, 11}})

	// Loudness and peaks against ffmpeg's own ebur128 and volumedetect.
	peak := extractortest.Data(t, outs["audiopeak"])
	ref := bare(t, clip, "ebur128=peak=true")
	near(t, "integrated", peak["integrated_lufs"], lastNumber(t, ref, "I:"))
	near(t, "range", peak["loudness_range_lu"], lastNumber(t, ref, "LRA:"))
	near(t, "true peak", peak["true_peak_dbfs"], lastNumber(t, ref, "Peak:"))
	near(t, "true peak of the test tone", peak["true_peak_dbfs"], -12)
	if peak["silent"] != false {
		t.Errorf("silent %v", peak["silent"])
	}
	vol := extractortest.Data(t, outs["volumedetect"])
	ref = bare(t, clip, "volumedetect")
	near(t, "mean volume", vol["mean_volume_db"], lastNumber(t, ref, "mean_volume:"))
	near(t, "max volume", vol["max_volume_db"], lastNumber(t, ref, "max_volume:"))
	if vol["samples"] != lastNumber(t, ref, "n_samples:") {
		t.Errorf("samples %v", vol["samples"])
	}
}

// TestOneDecodePerFile runs the six analyses in one harvest with ffmpeg
// and ffprobe behind wrappers that log each start: one probe and one
// decode. (Not parallel: it changes PATH.)
func TestOneDecodePerFile(t *testing.T) {
	clip := qcClip(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "starts.log")
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\necho " + tool + " >> '" + logPath + "'\nexec '" + real + "' \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	outs := extractortest.Harvest(t, registry(t), extractortest.Input(t, clip), names...)
	for _, n := range names {
		if o := outs[n]; o.Err != nil || len(o.Data) == 0 {
			t.Errorf("%s: %v %v", n, o.Err, o.Data)
		}
	}
	starts, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(starts); got != "ffprobe\nffmpeg\n" {
		t.Errorf("started %q, want one ffprobe and one ffmpeg", got)
	}
}

// TestStreamsNeeded: an analysis refuses (ErrUnsupported, recorded as
// nothing) a file without the stream it needs, and a harvest skips the
// picture analyses of an audio file by its MIME type.
func TestStreamsNeeded(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	silent := makeClip(t, "picture.mp4", "testsrc=d=1:s=160x120:r=25", "")
	for _, n := range []string{"vendor_silence", "audiopeak", "volumedetect"} {
		o := extractortest.Run(t, reg, n, extractortest.Input(t, silent))
		if !errors.Is(o.Err, extractors.ErrUnsupported) {
			t.Errorf("%s on a video without sound: %v", n, o.Err)
		}
	}
	wav := "testdata/Front_Center.wav"
	for _, n := range []string{"black_scenes", "vendor_color_bars"} {
		o := extractortest.Run(t, reg, n, extractortest.Input(t, wav))
		if !errors.Is(o.Err, extractors.ErrUnsupported) {
			t.Errorf("%s on a WAV: %v", n, o.Err)
		}
	}
	outs := extractortest.Harvest(t, reg, extractortest.Input(t, wav), names...)
	if _, ran := outs["black_scenes"]; ran {
		t.Error("black_scenes ran on a WAV")
	}
	if o := outs["vendor_start_end"]; o.Err != nil {
		t.Errorf("start/end of a WAV: %v", o.Err)
	}
	// A video without sound: start/end from the picture alone.
	o := extractortest.Run(t, reg, "vendor_start_end", extractortest.Input(t, silent))
	if d := extractortest.Data(t, o); d["found"] != true || d["start"] != 0.0 {
		t.Errorf("start/end of a silent video: %v", d)
	}
}

// TestDecodeCap: the decode stops at its cap, however long the file says
// it is.
func TestDecodeCap(t *testing.T) {
	t.Parallel()
	clip := qcClip(t)
	run := extractors.NewRunner(1)
	probe, err := av.Read(context.Background(), run, &extractors.Input{Path: clip})
	if err != nil {
		t.Fatal(err)
	}
	p, err := decode(context.Background(), run, clip, probe, needsOf("vendor_start_end"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if p.end > 3 || p.end < 2.9 || len(p.samples) > 3*frameRate+1 {
		t.Errorf("decoded %v s, %d samples", p.end, len(p.samples))
	}
	if rs := p.blackRanges(); len(rs) != 1 || rs[0].End > 3 {
		t.Errorf("black %v", rs)
	}
}
