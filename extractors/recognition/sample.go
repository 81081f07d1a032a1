package recognition

// Bounds of the vendor analyses' samples (the samples themselves are cut
// by extractors/shared/provider: AudioClip, Frames).
const (
	maxAudioSeconds = 120
	maxFrames       = 16
)
