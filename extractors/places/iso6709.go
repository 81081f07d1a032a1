package places

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// maxISO6709 bounds the string read: real ones are about 30 bytes.
const maxISO6709 = 128

// ParseISO6709 reads a point written as ISO 6709 does in video metadata
// (QuickTime ©xyz, com.apple.quicktime.location.ISO6709, Android's
// location tag): "+48.8584+002.2945/", with an optional altitude
// ("+35.6895+139.6917+040.000/") and coordinate reference system
// ("CRSWGS_84"). Latitude and longitude are each a sign and degrees
// (±DD.D, ±DDD.D), degrees and minutes (±DDMM.M, ±DDDMM.M) or degrees,
// minutes and seconds (±DDMMSS.S, ±DDDMMSS.S), told apart by the number of
// digits before the decimal point; writers that drop the leading zeros of
// degrees ("+48.85+2.29/") are read too.
func ParseISO6709(s string) (lat, lon float64, err error) {
	if len(s) > maxISO6709 {
		return 0, 0, errors.New("iso 6709: too long")
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "/")
	if i := strings.Index(s, "CRS"); i >= 0 {
		s = strings.TrimSuffix(s[:i], "/")
	}
	parts := splitSigned(s)
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, errors.New("iso 6709: want ±latitude±longitude[±altitude]")
	}
	lat, err = component(parts[0], 2, 90)
	if err != nil {
		return 0, 0, err
	}
	lon, err = component(parts[1], 3, 180)
	if err != nil {
		return 0, 0, err
	}
	if len(parts) == 3 {
		if _, err := strconv.ParseFloat(parts[2], 64); err != nil {
			return 0, 0, errors.New("iso 6709: bad altitude")
		}
	}
	return lat, lon, nil
}

// splitSigned cuts s before each sign: "+1-2+3" -> "+1", "-2", "+3". A
// part that does not start with a sign makes the result nil.
func splitSigned(s string) []string {
	if s == "" || (s[0] != '+' && s[0] != '-') {
		return nil
	}
	var out []string
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || s[i] == '+' || s[i] == '-' {
			out = append(out, s[start:i])
			start = i
		}
	}
	return out
}

// component reads one signed coordinate whose degrees have degDigits
// digits when written in full, bounded by limit degrees.
func component(p string, degDigits int, limit float64) (float64, error) {
	sign := 1.0
	if p[0] == '-' {
		sign = -1
	}
	body := p[1:]
	intPart, frac, _ := strings.Cut(body, ".")
	if intPart == "" || !digits(intPart) || (frac != "" && !digits(frac)) || len(frac) > 12 {
		return 0, errors.New("iso 6709: bad number " + strconv.Quote(p))
	}
	var deg, min, sec float64
	switch n := len(intPart); {
	case n <= degDigits:
		deg, _ = strconv.ParseFloat(body, 64)
	case n == degDigits+2:
		deg, _ = strconv.ParseFloat(intPart[:degDigits], 64)
		min, _ = strconv.ParseFloat(intPart[degDigits:]+"."+frac, 64)
	case n == degDigits+4:
		deg, _ = strconv.ParseFloat(intPart[:degDigits], 64)
		min, _ = strconv.ParseFloat(intPart[degDigits:degDigits+2], 64)
		sec, _ = strconv.ParseFloat(intPart[degDigits+2:]+"."+frac, 64)
	default:
		return 0, errors.New("iso 6709: bad number " + strconv.Quote(p))
	}
	if min >= 60 || sec >= 60 {
		return 0, errors.New("iso 6709: minutes or seconds over 60 in " + strconv.Quote(p))
	}
	v := sign * (deg + min/60 + sec/3600)
	if math.IsNaN(v) || math.Abs(v) > limit {
		return 0, errors.New("iso 6709: out of range " + strconv.Quote(p))
	}
	return v, nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
