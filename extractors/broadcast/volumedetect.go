package broadcast

import (
	"errors"
	"math"

	"github.com/metaharvest/metaharvest/extractors"
)

func init() {
	register(extractors.Info{
		Name:           "volumedetect",
		DisplayName:    "Volume Detection",
		Family:         extractors.FamilyQC,
		Version:        "1.0.0",
		DefaultEnabled: true,
		Fields: []extractors.Field{
			{Path: "mean_volume_db", Type: extractors.TypeNumber, Doc: "RMS level of all samples, dBFS (absent without samples)"},
			{Path: "max_volume_db", Type: extractors.TypeNumber, Doc: "highest sample, dBFS (-91 for digital silence of 16 bits)"},
			{Path: "samples", Type: extractors.TypeNumber, Doc: "samples measured, all channels"},
			{Path: "histogram.level_db", Type: extractors.TypeNumber, Doc: "a whole dB level, 0 or negative"},
			{Path: "histogram.samples", Type: extractors.TypeNumber, Doc: "samples that peak at that level; the loudest levels only, up to 0.1% of all samples"},
			analysedField("audio"),
		},
	}, sound, volume)
}

// volume is ffmpeg's volumedetect on the first audio stream (converted to
// 16-bit samples, as volumedetect does).
func volume(p *pass) (map[string]any, error) {
	v := p.report.Volume
	if v == nil {
		return nil, errors.New("ffmpeg printed no volumedetect report")
	}
	hist := make([]any, 0, len(v.Histogram))
	for _, b := range v.Histogram {
		hist = append(hist, map[string]any{"level_db": b.Level, "samples": b.Samples})
	}
	data := map[string]any{"samples": v.Samples, "histogram": hist, "analysed_duration": round3(p.end)}
	if !math.IsNaN(v.Mean) {
		data["mean_volume_db"] = round3(v.Mean)
	}
	if !math.IsNaN(v.Max) {
		data["max_volume_db"] = round3(v.Max)
	}
	return data, nil
}
