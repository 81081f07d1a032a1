package broadcast

import (
	"errors"
	"math"

	"github.com/metaharvest/metaharvest/extractors"
)

func init() {
	register(extractors.Info{
		Name:           "audiopeak",
		DisplayName:    "Audio Peaks",
		Family:         extractors.FamilyQC,
		Version:        "1.0.0",
		DefaultEnabled: true,
		Fields: []extractors.Field{
			{Path: "true_peak_dbfs", Type: extractors.TypeNumber, Doc: "highest true (inter-sample) peak of any channel, dBTP; absent for digital silence", Label: "True peak (dBTP)"},
			{Path: "sample_peak_dbfs", Type: extractors.TypeNumber, Doc: "highest sample of any channel, dBFS; absent for digital silence", Label: "Sample peak (dBFS)"},
			{Path: "integrated_lufs", Type: extractors.TypeNumber, Doc: "integrated loudness (EBU R128 / ITU-R BS.1770), LUFS; -70 for silence", Label: "Integrated loudness (LUFS)"},
			{Path: "integrated_threshold_lufs", Type: extractors.TypeNumber, Doc: "relative gate of the integrated loudness, LUFS"},
			{Path: "loudness_range_lu", Type: extractors.TypeNumber, Doc: "loudness range (EBU Tech 3342), LU", Label: "Loudness range (LU)"},
			{Path: "lra_low_lufs", Type: extractors.TypeNumber, Doc: "low end of the loudness range, LUFS"},
			{Path: "lra_high_lufs", Type: extractors.TypeNumber, Doc: "high end of the loudness range, LUFS"},
			{Path: "lra_threshold_lufs", Type: extractors.TypeNumber, Doc: "relative gate of the loudness range, LUFS"},
			{Path: "silent", Type: extractors.TypeBool, Doc: "the audio is digital silence (no peak at all)"},
			analysedField("audio"),
		},
	}, sound, audioPeak)
}

// audioPeak measures the first audio stream as EBU R128 asks: ffmpeg's
// ebur128 with true peak (4x oversampled) and sample peak, over the whole
// stream (up to the decode cap). ffmpeg prints to 0.1 LU/dB.
func audioPeak(p *pass) (map[string]any, error) {
	l := p.report.Loudness
	if l == nil {
		return nil, errors.New("ffmpeg printed no ebur128 summary")
	}
	data := map[string]any{"analysed_duration": round3(p.end), "silent": math.IsInf(l.TruePeak, -1)}
	for key, v := range map[string]float64{
		"true_peak_dbfs":            l.TruePeak,
		"sample_peak_dbfs":          l.SamplePeak,
		"integrated_lufs":           l.Integrated,
		"integrated_threshold_lufs": l.IntegratedThreshold,
		"loudness_range_lu":         l.Range,
		"lra_low_lufs":              l.RangeLow,
		"lra_high_lufs":             l.RangeHigh,
		"lra_threshold_lufs":        l.RangeThreshold,
	} {
		// -inf (the peak of silence) and values ffmpeg did not print are
		// left out: JSON has no infinity.
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			data[key] = round3(v)
		}
	}
	return data, nil
}
