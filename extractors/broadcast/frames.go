package broadcast

// The pass samples the video at frameRate frames a second (ffmpeg's fps
// filter with start_time=0: sample i shows the picture at i/frameRate s),
// scaled to frameWidth x frameHeight RGB by area averaging, and pipes the
// samples to a frameSink. Sample i stands for [i/frameRate,
// (i+1)/frameRate): ranges found on samples are exact to 1/frameRate s.
const (
	frameRate   = 4
	frameWidth  = 96
	frameHeight = 48
	frameBytes  = frameWidth * frameHeight * 3

	// darkLevel: a pixel whose channels are all at most this is black
	// (about blackdetect's pix_th=0.10 of video range, in full-range RGB);
	// a sample is dark when 98% of its pixels are.
	darkLevel = 32
	// stillDiff is the mean absolute difference of channel values (0..255)
	// under which two consecutive samples show the same picture: a slate,
	// a caption card, a freeze. Area scaling averages compression noise
	// away; motion and fades are far above it.
	stillDiff = 2.0
	// minBars and minStill are the shortest bar and still stretches kept.
	minBars  = 0.5
	minStill = 1.0
)

// sampleInfo is what one sample showed.
type sampleInfo struct {
	bars  string // noBars, smpteBars or ebuBars
	dark  bool
	still bool // same picture as the sample before
}

// frameSink receives the raw samples (an io.Writer for extractors.Cmd.Stdout)
// and keeps a few bytes per sample: its memory is two frames plus
// maxSamples infos however long the video.
type frameSink struct {
	buf        []byte
	n          int
	prev       []byte
	samples    []sampleInfo
	maxSamples int
	dropped    int
}

func newFrameSink(maxSamples int) *frameSink {
	return &frameSink{buf: make([]byte, frameBytes), maxSamples: maxSamples}
}

func (s *frameSink) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		c := copy(s.buf[s.n:], p)
		s.n += c
		p = p[c:]
		if s.n == len(s.buf) {
			s.sample(s.buf)
			s.n = 0
		}
	}
	return n, nil
}

func (s *frameSink) sample(pix []byte) {
	if len(s.samples) >= s.maxSamples {
		s.dropped++
		return
	}
	info := analyseSample(pix, s.prev)
	s.samples = append(s.samples, info)
	if s.prev == nil {
		s.prev = make([]byte, len(pix))
	}
	copy(s.prev, pix)
}

// analyseSample classes one sample; prev is the sample before (nil for the
// first).
func analyseSample(pix, prev []byte) sampleInfo {
	info := sampleInfo{bars: barsPattern(pix, frameWidth, frameHeight)}
	dark := 0
	for i := 0; i+2 < len(pix); i += 3 {
		if pix[i] <= darkLevel && pix[i+1] <= darkLevel && pix[i+2] <= darkLevel {
			dark++
		}
	}
	info.dark = len(pix) > 0 && dark*100 >= len(pix)/3*98
	if len(prev) == len(pix) && len(pix) > 0 {
		var sum int64
		for i := range pix {
			d := int64(pix[i]) - int64(prev[i])
			sum += max(d, -d)
		}
		info.still = float64(sum)/float64(len(pix)) < stillDiff
	}
	return info
}

// BarsRange is a stretch of colour bars.
type BarsRange struct {
	Range
	Pattern string
}

// barsRanges turns the samples into stretches of bars of at least
// minBars, ending at most at end. A stretch takes the kind most of its
// samples showed.
func barsRanges(samples []sampleInfo, end float64) []BarsRange {
	var out []BarsRange
	for i := 0; i < len(samples); {
		if samples[i].bars == noBars {
			i++
			continue
		}
		j, ebu := i, 0
		for ; j < len(samples) && samples[j].bars != noBars; j++ {
			if samples[j].bars == ebuBars {
				ebu++
			}
		}
		r := Range{Start: sampleTime(i), End: min(sampleTime(j), end)}
		if r.Duration() >= minBars-1e-9 {
			kind := smpteBars
			if ebu*2 > j-i {
				kind = ebuBars
			}
			out = append(out, BarsRange{Range: r, Pattern: kind})
		}
		i = j
	}
	return out
}

// stillRanges are the stretches of at least minStill where the picture
// does not change and is neither black nor bars: slates, caption cards,
// freezes.
func stillRanges(samples []sampleInfo, end float64) []Range {
	var out []Range
	plain := func(k int) bool { return !samples[k].dark && samples[k].bars == noBars }
	for i := 0; i < len(samples); {
		if !plain(i) {
			i++
			continue
		}
		j := i + 1
		for ; j < len(samples) && plain(j) && samples[j].still; j++ {
		}
		r := Range{Start: sampleTime(i), End: min(sampleTime(j), end)}
		if r.Duration() >= minStill-1e-9 {
			out = append(out, r)
		}
		i = j
	}
	return out
}

func sampleTime(i int) float64 { return float64(i) / frameRate }
