package broadcast

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// Report is what ffmpeg's log (stderr, at level info) says about one
// decode pass: the black and silent stretches blackdetect and
// silencedetect found, ebur128's loudness summary, volumedetect's
// statistics, and how far the decode went.
type Report struct {
	Black    []Range
	Silence  []Range
	Loudness *Loudness
	Volume   *Volume
	// End is the time of ffmpeg's final progress line, the decoded
	// duration in seconds (0 when absent).
	End float64
	// Dropped counts detector events beyond maxEvents.
	Dropped int
}

// Loudness is ebur128's summary (EBU R128). A value ffmpeg printed as
// -inf (the peaks of digital silence) is -Inf; a value it did not print is
// NaN.
type Loudness struct {
	Integrated          float64 `json:"integrated_lufs"`
	IntegratedThreshold float64 `json:"integrated_threshold_lufs"`
	Range               float64 `json:"loudness_range_lu"`
	RangeThreshold      float64 `json:"lra_threshold_lufs"`
	RangeLow            float64 `json:"lra_low_lufs"`
	RangeHigh           float64 `json:"lra_high_lufs"`
	SamplePeak          float64 `json:"sample_peak_dbfs"`
	TruePeak            float64 `json:"true_peak_dbfs"`
}

// Volume is volumedetect's report: the RMS level of all samples (mean) and
// the highest sample (max) in dB relative to full scale, and the histogram
// of the loudest samples by whole dB.
type Volume struct {
	Samples   int64
	Mean, Max float64 // NaN when not printed (no samples)
	Histogram []Bin
}

// Bin is one line of volumedetect's histogram: Samples samples peaked at
// Level dB (0 or negative).
type Bin struct {
	Level   int   `json:"level_db"`
	Samples int64 `json:"samples"`
}

const (
	// maxEvents bounds the black and silent stretches kept from one log.
	// The decode cap and the detectors' minimum durations keep real
	// files far below it (4 h / 0.5 s = 28800).
	maxEvents = 100000
	// maxLine bounds a log line; longer ones are skipped (they are stream
	// metadata, never a measurement).
	maxLine = 4096
	// maxBins bounds the histogram (volumedetect prints at most ~100).
	maxBins = 256
)

// ParseLog parses a whole ffmpeg log; the pass feeds it as it comes
// through a logParser instead.
func ParseLog(b []byte) *Report {
	p := newLogParser()
	p.Write(b)
	return p.finish()
}

// logParser reads ffmpeg's stderr as it comes (an io.Writer for
// extractors.Cmd.Stderr), keeping only the measurements: its memory is
// bounded whatever ffmpeg writes. Lines end at \n or \r (progress lines).
type logParser struct {
	rep      Report
	line     []byte
	skipping bool // inside a line longer than maxLine
	seen     int64

	openSilence float64 // start of a silence not yet ended; NaN if none
	summary     string  // ebur128 summary section being read ("" outside)
}

func newLogParser() *logParser {
	return &logParser{openSilence: math.NaN(), line: make([]byte, 0, 256)}
}

func (p *logParser) Write(b []byte) (int, error) {
	n := len(b)
	p.seen += int64(n)
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			p.add(b)
			break
		}
		p.add(b[:i])
		if !p.skipping {
			p.parseLine(string(p.line))
		}
		p.line, p.skipping = p.line[:0], false
		b = b[i+1:]
	}
	return n, nil
}

func (p *logParser) add(b []byte) {
	if p.skipping {
		return
	}
	if len(p.line)+len(b) > maxLine {
		p.skipping = true
		p.line = p.line[:0]
		return
	}
	p.line = append(p.line, b...)
}

// finish parses an unterminated last line and returns the report.
func (p *logParser) finish() *Report {
	if len(p.line) > 0 && !p.skipping {
		p.parseLine(string(p.line))
		p.line = p.line[:0]
	}
	rep := p.rep
	return &rep
}

// parseLine handles one line. Filter lines look like
// "[Parsed_ebur128_4 @ 0x5649...] Summary:" or "[blackdetect @ 0x...] ...";
// the ebur128 summary continues on indented lines without a prefix.
func (p *logParser) parseLine(line string) {
	if p.summary != "" {
		if line == "" || line[0] == ' ' {
			p.summaryLine(strings.TrimSpace(line))
			return
		}
		p.summary = ""
	}
	filter, msg, ok := filterLine(line)
	if !ok {
		if strings.HasPrefix(line, "frame=") || strings.HasPrefix(line, "size=") {
			if t, ok := progressTime(line); ok {
				p.rep.End = t
			}
		}
		return
	}
	switch filter {
	case "blackdetect":
		p.blackLine(msg)
	case "silencedetect":
		p.silenceLine(msg)
	case "ebur128":
		if strings.TrimSpace(msg) == "Summary:" {
			// ffmpeg 5.1 configures a filter_complex graph once before the
			// real one and prints an empty summary as it frees it: the last
			// summary is the one that counts.
			p.rep.Loudness = &Loudness{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}
			p.summary = "start"
		}
	case "volumedetect":
		p.volumeLine(msg)
	}
}

// filterLine splits "[name @ 0xADDR] message" into the filter's name
// ("Parsed_ebur128_4" gives "ebur128") and the message.
func filterLine(line string) (filter, msg string, ok bool) {
	if !strings.HasPrefix(line, "[") {
		return "", "", false
	}
	end := strings.Index(line, "] ")
	if end < 0 {
		return "", "", false
	}
	tag, msg := line[1:end], line[end+2:]
	name, addr, ok := strings.Cut(tag, " @ ")
	if !ok || !strings.HasPrefix(addr, "0x") {
		return "", "", false
	}
	if rest, ok := strings.CutPrefix(name, "Parsed_"); ok {
		if i := strings.LastIndexByte(rest, '_'); i > 0 {
			name = rest[:i]
		}
	}
	return name, msg, true
}

// blackLine reads "black_start:2 black_end:5 black_duration:3".
func (p *logParser) blackLine(msg string) {
	var r Range
	var haveStart, haveEnd bool
	for _, f := range strings.Fields(msg) {
		k, v, _ := strings.Cut(f, ":")
		switch k {
		case "black_start":
			r.Start, haveStart = seconds(v)
		case "black_end":
			r.End, haveEnd = seconds(v)
		}
	}
	if haveStart && haveEnd {
		p.addRange(&p.rep.Black, r)
	}
}

// silenceLine reads "silence_start: 2.00058" and
// "silence_end: 4.99865 | silence_duration: 2.99806".
func (p *logParser) silenceLine(msg string) {
	if v, ok := strings.CutPrefix(msg, "silence_start:"); ok {
		if t, ok := seconds(v); ok {
			p.openSilence = t
		}
		return
	}
	v, ok := strings.CutPrefix(msg, "silence_end:")
	if !ok {
		return
	}
	endText, durText, _ := strings.Cut(v, "|")
	end, ok := seconds(endText)
	if !ok {
		return
	}
	start := p.openSilence
	if math.IsNaN(start) {
		// No start seen: take it from the duration.
		d, ok := strings.CutPrefix(strings.TrimSpace(durText), "silence_duration:")
		dur, ok2 := seconds(d)
		if !ok || !ok2 {
			return
		}
		start = max(end-dur, 0)
	}
	p.openSilence = math.NaN()
	p.addRange(&p.rep.Silence, Range{Start: start, End: end})
}

func (p *logParser) addRange(list *[]Range, r Range) {
	if r.End < r.Start {
		return
	}
	if len(*list) >= maxEvents {
		p.rep.Dropped++
		return
	}
	*list = append(*list, r)
}

// summaryLine reads one line of ebur128's summary:
//
//	Integrated loudness:
//	  I:         -23.5 LUFS
//	  Threshold: -33.7 LUFS
//	Loudness range:
//	  LRA:        12.0 LU
//	  Threshold: -45.4 LUFS
//	  LRA low:   -34.1 LUFS
//	  LRA high:  -22.1 LUFS
//	Sample peak:
//	  Peak:       -6.5 dBFS
//	True peak:
//	  Peak:      -18.0 dBFS
func (p *logParser) summaryLine(s string) {
	switch s {
	case "Integrated loudness:", "Loudness range:", "Sample peak:", "True peak:":
		p.summary = s
		return
	}
	key, v, ok := strings.Cut(s, ":")
	if !ok {
		return
	}
	val, ok := level(v)
	if !ok {
		return
	}
	l := p.rep.Loudness
	switch p.summary + key {
	case "Integrated loudness:I":
		l.Integrated = val
	case "Integrated loudness:Threshold":
		l.IntegratedThreshold = val
	case "Loudness range:LRA":
		l.Range = val
	case "Loudness range:Threshold":
		l.RangeThreshold = val
	case "Loudness range:LRA low":
		l.RangeLow = val
	case "Loudness range:LRA high":
		l.RangeHigh = val
	case "Sample peak:Peak":
		l.SamplePeak = val
	case "True peak:Peak":
		l.TruePeak = val
	}
}

// volumeLine reads volumedetect's lines: "n_samples: 480256",
// "mean_volume: -25.6 dB", "max_volume: -18.0 dB", "histogram_18db: 41734".
// Each n_samples line starts a new report (the last one counts, as for
// ebur128).
func (p *logParser) volumeLine(msg string) {
	key, v, ok := strings.Cut(msg, ":")
	if !ok {
		return
	}
	v = strings.TrimSpace(v)
	if key == "n_samples" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return
		}
		p.rep.Volume = &Volume{Samples: n, Mean: math.NaN(), Max: math.NaN()}
		return
	}
	vol := p.rep.Volume
	if vol == nil {
		return
	}
	switch key {
	case "mean_volume", "max_volume":
		x, ok := level(v)
		if !ok || math.IsInf(x, 0) {
			return
		}
		if key == "mean_volume" {
			vol.Mean = x
		} else {
			vol.Max = x
		}
		return
	}
	db, ok := strings.CutPrefix(key, "histogram_")
	if !ok || len(vol.Histogram) >= maxBins {
		return
	}
	db, ok = strings.CutSuffix(db, "db")
	level, err1 := strconv.Atoi(db)
	n, err2 := strconv.ParseInt(v, 10, 64)
	if !ok || err1 != nil || err2 != nil || level < 0 || level > 1000 || n < 0 {
		return
	}
	vol.Histogram = append(vol.Histogram, Bin{Level: -level, Samples: n})
}

// seconds parses a time the detectors print ("2.00058"); negative times
// (a silence found before the first sample's timestamp) are 0.
func seconds(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f > 1e9 {
		return 0, false
	}
	return max(f, 0), true
}

// level parses "-23.5 LUFS", "-inf dBFS", "12.0 LU", "-25.6 dB".
func level(s string) (float64, bool) {
	num, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 1) || (f > 1e6 || f < -1e6) && !math.IsInf(f, -1) {
		return 0, false
	}
	return f, true
}

// progressTime reads time= of a progress line
// ("frame=   40 fps=0.0 ... time=00:00:10.00 bitrate=...").
func progressTime(line string) (float64, bool) {
	i := strings.Index(line, "time=")
	if i < 0 {
		return 0, false
	}
	v, _, _ := strings.Cut(line[i+len("time="):], " ")
	parts := strings.Split(v, ":")
	if len(parts) != 3 {
		return 0, false
	}
	h, err1 := strconv.ParseUint(parts[0], 10, 32)
	m, err2 := strconv.ParseUint(parts[1], 10, 8)
	s, err3 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil || err3 != nil || m >= 60 || s < 0 || s >= 61 || h > 1e6 {
		return 0, false
	}
	return float64(h)*3600 + float64(m)*60 + s, true
}
