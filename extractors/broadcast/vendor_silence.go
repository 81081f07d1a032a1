package broadcast

import "github.com/metaharvest/metaharvest/extractors"

// vendor_silence is a vendor-branded analysis of the reference that runs
// here, locally: no provider is needed.
func init() {
	register(extractors.Info{
		Name:           "vendor_silence",
		DisplayName:    "Silence",
		Family:         extractors.FamilyQC,
		Version:        "1.0.0",
		DefaultEnabled: true,
		Fields:         summaryFields("silences", "silent stretches", "silence", "audio"),
	}, sound, silence)
}

// silence lists the stretches where every channel of the first audio
// stream stays under -60 dBFS for at least 0.5 s (silencedetect), in time
// order, the first 1000 of them.
func silence(p *pass) (map[string]any, error) {
	return summaryData("silences", p.silenceRanges(), p.end), nil
}
