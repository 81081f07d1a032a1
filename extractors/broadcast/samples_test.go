package broadcast

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// samples are the real files of testdata (see its README).
var samples = []string{"Front_Center.wav", "audio-test-signal.oga", "bell.oga", "mp4.mp4", "webm.webm"}

// TestSuite runs the extractor conformance suite over the package's
// registry and its samples.
func TestSuite(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, s := range samples {
		paths = append(paths, filepath.Join("testdata", s))
	}
	extractortest.Suite(t, registry(t), paths)
}

// TestRealFiles holds the analyses of the samples to what the bare tools
// print for them (ffmpeg 5.1 -af ebur128=peak=true+sample, volumedetect,
// silencedetect=n=-60dB:d=0.5, -vf blackdetect=d=0.5, run by hand when
// the files were added; the analyses run the same filters, so the
// figures agree to the digit).
func TestRealFiles(t *testing.T) {
	t.Parallel()
	type want struct {
		integrated, lra, truePeak, samplePeak float64
		mean, max, samples                    float64
		duration                              float64
		video                                 bool
	}
	for name, w := range map[string]want{
		"Front_Center.wav":      {-21.8, 0, -6.5, -6.5, -22.6, -6.5, 68545, 1.43, false},
		"audio-test-signal.oga": {-29.9, 0, -17.5, -17.6, -30.1, -17.6, 67579, 1.41, false},
		// Shorter than ebur128's 400 ms block: no integrated loudness (-70).
		"bell.oga":  {-70, 0, -10.3, -10.5, -22.1, -10.5, 12302, 0.14, false},
		"mp4.mp4":   {-30.6, 2.5, -11.0, -11.8, -33.5, -11.8, 266240, 5.57, true},
		"webm.webm": {-30.6, 2.6, -11.1, -11.8, -33.5, -11.8, 267456, 5.57, true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			outs := extractortest.Harvest(t, registry(t), extractortest.Input(t, filepath.Join("testdata", name)), names...)
			exact := func(what string, got any, want float64) {
				t.Helper()
				if g, ok := got.(float64); !ok || math.Abs(g-want) > 0.001 {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			peak := extractortest.Data(t, outs["audiopeak"])
			exact("integrated", peak["integrated_lufs"], w.integrated)
			exact("range", peak["loudness_range_lu"], w.lra)
			exact("true peak", peak["true_peak_dbfs"], w.truePeak)
			exact("sample peak", peak["sample_peak_dbfs"], w.samplePeak)
			vol := extractortest.Data(t, outs["volumedetect"])
			exact("mean volume", vol["mean_volume_db"], w.mean)
			exact("max volume", vol["max_volume_db"], w.max)
			exact("samples", vol["samples"], w.samples)
			near(t, "analysed", vol["analysed_duration"], w.duration)
			silence := extractortest.Data(t, outs["vendor_silence"])
			exact("silences", silence["count"], 0)
			se := extractortest.Data(t, outs["vendor_start_end"])
			if se["found"] != true || se["start"] != 0.0 {
				t.Errorf("start/end %v", se)
			}
			near(t, "programme end", se["end"], w.duration)
			if !w.video {
				if _, ran := outs["black_scenes"]; ran {
					t.Error("black_scenes ran on a sound file")
				}
				return
			}
			exact("black scenes", extractortest.Data(t, outs["black_scenes"])["count"], 0)
			exact("colour bars", extractortest.Data(t, outs["vendor_color_bars"])["count"], 0)
		})
	}
}
