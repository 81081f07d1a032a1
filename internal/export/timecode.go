package export

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Rate is a frame rate as editing tools count it: a whole timebase (24,
// 25, 30 ...), the real rate (29.97 for a timebase of 30 in NTSC), and
// whether its timecode drops frame numbers (29.97 and 59.94).
type Rate struct {
	Base int
	FPS  float64
	Drop bool
}

// DefaultRate is the rate of a sequence with no video to take one from.
var DefaultRate = Rate{Base: 25, FPS: 25}

// RateOf is the rate of a stream of fps frames a second (DefaultRate for
// none). NTSC rates (23.976, 29.97, 59.94) keep their timebase of 24, 30
// or 60; 29.97 and 59.94 count in drop-frame timecode.
func RateOf(fps float64) Rate {
	if !(fps > 0) || fps > 1000 {
		return DefaultRate
	}
	base := int(math.Round(fps))
	if base < 1 {
		return DefaultRate
	}
	if ntsc := float64(base) * 1000 / 1001; math.Abs(fps-ntsc) < 0.01 && math.Abs(fps-float64(base)) > 0.01 {
		return Rate{Base: base, FPS: ntsc, Drop: base == 30 || base == 60}
	}
	return Rate{Base: base, FPS: float64(base)}
}

// Frames is the frame at sec seconds (rounded to the nearest).
func (r Rate) Frames(sec float64) int64 { return int64(math.Round(sec * r.FPS)) }

// Seconds is when frame n starts.
func (r Rate) Seconds(n int64) float64 { return float64(n) / r.FPS }

// dropped is how many frame numbers drop-frame timecode skips each minute
// (but every tenth).
func (r Rate) dropped() int64 { return int64(r.Base) / 15 }

// Timecode renders frame n as HH:MM:SS:FF (HH:MM:SS;FF in drop frame);
// hours wrap at 24 as on tape.
func (r Rate) Timecode(n int64) string {
	if n < 0 {
		n = 0
	}
	base := int64(r.Base)
	sep := ":"
	if r.Drop {
		sep = ";"
		d := r.dropped()
		per10 := base*600 - 9*d
		perMin := base*60 - d
		tens, rem := n/per10, n%per10
		n += 9 * d * tens
		if rem > d {
			n += d * ((rem - d) / perMin)
		}
	}
	ff := n % base
	s := n / base
	return fmt.Sprintf("%02d:%02d:%02d%s%02d", (s/3600)%24, (s/60)%60, s%60, sep, ff)
}

// ParseTimecode reads HH:MM:SS:FF (or with ";" or "." before the frames)
// as a frame number at r; false when it is not a timecode of r.
func (r Rate) ParseTimecode(tc string) (int64, bool) {
	tc = strings.TrimSpace(tc)
	if len(tc) != 11 {
		return 0, false
	}
	var parts [4]int64
	for i := range parts {
		if i > 0 && !strings.ContainsRune(":;.,", rune(tc[i*3-1])) {
			return 0, false
		}
		n, err := strconv.ParseInt(tc[i*3:i*3+2], 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		parts[i] = n
	}
	hh, mm, ss, ff := parts[0], parts[1], parts[2], parts[3]
	if mm > 59 || ss > 59 || ff >= int64(r.Base) {
		return 0, false
	}
	n := (hh*3600+mm*60+ss)*int64(r.Base) + ff
	if r.Drop {
		minutes := hh*60 + mm
		n -= r.dropped() * (minutes - minutes/10)
	}
	return n, true
}
