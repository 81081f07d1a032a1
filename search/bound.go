package search

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Bound is one end of a range filter: a number or an instant.
type Bound struct {
	Kind Kind // KindNumber or KindDate
	Num  float64
	Time time.Time
}

// Seconds is the bound as a number: Num, or the instant in seconds since the
// epoch (how engines compare dates).
func (b Bound) Seconds() float64 {
	if b.Kind == KindDate {
		return float64(b.Time.UnixNano()) / 1e9
	}
	return b.Num
}

// ParseBound reads a range bound:
//
//   - a number: "42", "-1.5", "1e9";
//   - "now", or date math on it: "now-1h", "now+30m", "now-7d", "now-1d/d"
//     (several steps may follow each other, "now-1M+2d"; units s m h d w M y,
//     H for hours too; "/unit" rounds down to the start of that unit, and for
//     an upper bound up to its last instant, so that "to: now/d" means the
//     end of today);
//   - an RFC 3339 timestamp ("2024-05-01T10:00:00Z", zone optional, UTC when
//     absent);
//   - a date "2024-05-01": its first instant as a lower bound, its last as an
//     upper bound, so that from/to dates are both inclusive.
//
// upper says which end is being read. The empty string is not a bound (the
// caller treats it as open).
func ParseBound(s string, now time.Time, upper bool) (Bound, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Bound{}, errors.New("empty bound")
	}
	if len(s) > 64 {
		return Bound{}, errors.New("bound too long")
	}
	if isNumber(s) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return Bound{}, fmt.Errorf("%q is out of range", s)
		}
		return Bound{Kind: KindNumber, Num: f}, nil
	}
	if strings.HasPrefix(s, "now") {
		t, err := dateMath(s[3:], now.UTC(), upper)
		if err != nil {
			return Bound{}, fmt.Errorf("%q: %w", s, err)
		}
		return Bound{Kind: KindDate, Time: t}, nil
	}
	if len(s) == 10 {
		t, err := time.Parse("2006-01-02", s)
		if err != nil || t.Year() < 1 {
			return Bound{}, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
		}
		if upper {
			t = t.AddDate(0, 0, 1).Add(-time.Nanosecond)
		}
		return Bound{Kind: KindDate, Time: t}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			if t = t.UTC(); t.Year() < 1 || t.Year() > 9999 {
				return Bound{}, fmt.Errorf("%q is out of range", s)
			}
			return Bound{Kind: KindDate, Time: t}, nil
		}
	}
	return Bound{}, fmt.Errorf("%q is neither a number, a date, a timestamp nor now-relative", s)
}

// ParseNumber reads a plain decimal number ("42", "-1.5", "1e9"); it refuses
// hex, "Inf", "NaN" and digit separators, which strconv.ParseFloat accepts.
func ParseNumber(s string) (float64, bool) {
	if !isNumber(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// isNumber accepts plain decimal numbers only (no hex, no "Inf", no "_"),
// which strconv.ParseFloat alone would let through.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// maxAmount bounds one date-math step; the result must also stay within
// years 1..9999.
const maxAmount = 1_000_000

func dateMath(expr string, t time.Time, upper bool) (time.Time, error) {
	for expr != "" {
		op := expr[0]
		switch op {
		case '+', '-':
			i := 1
			for i < len(expr) && expr[i] >= '0' && expr[i] <= '9' {
				i++
			}
			if i == 1 {
				return time.Time{}, errors.New("date math needs a number after " + string(op))
			}
			if i-1 > 7 {
				return time.Time{}, errors.New("date math amount too large")
			}
			n, _ := strconv.Atoi(expr[1:i])
			if n > maxAmount {
				return time.Time{}, errors.New("date math amount too large")
			}
			if op == '-' {
				n = -n
			}
			if i >= len(expr) {
				return time.Time{}, errors.New("date math needs a unit (s m h d w M y)")
			}
			var err error
			if t, err = addUnit(t, n, expr[i]); err != nil {
				return time.Time{}, err
			}
			expr = expr[i+1:]
		case '/':
			if len(expr) < 2 {
				return time.Time{}, errors.New("rounding needs a unit (s m h d w M y)")
			}
			var err error
			if t, err = roundUnit(t, expr[1], upper); err != nil {
				return time.Time{}, err
			}
			expr = expr[2:]
		default:
			return time.Time{}, fmt.Errorf("unexpected %q in date math", expr)
		}
		if y := t.Year(); y < 1 || y > 9999 {
			return time.Time{}, errors.New("date out of range")
		}
	}
	return t, nil
}

func addUnit(t time.Time, n int, unit byte) (time.Time, error) {
	switch unit {
	case 's':
		return t.Add(time.Duration(n) * time.Second), nil
	case 'm':
		return t.Add(time.Duration(n) * time.Minute), nil
	case 'h', 'H':
		return t.Add(time.Duration(n) * time.Hour), nil
	case 'd':
		return t.AddDate(0, 0, n), nil
	case 'w':
		return t.AddDate(0, 0, 7*n), nil
	case 'M':
		return t.AddDate(0, n, 0), nil
	case 'y':
		return t.AddDate(n, 0, 0), nil
	}
	return time.Time{}, fmt.Errorf("unknown date unit %q (s m h d w M y)", unit)
}

func roundUnit(t time.Time, unit byte, upper bool) (time.Time, error) {
	var start, next time.Time
	switch unit {
	case 's':
		start = t.Truncate(time.Second)
		next = start.Add(time.Second)
	case 'm':
		start = t.Truncate(time.Minute)
		next = start.Add(time.Minute)
	case 'h', 'H':
		start = t.Truncate(time.Hour)
		next = start.Add(time.Hour)
	case 'd':
		start = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		next = start.AddDate(0, 0, 1)
	case 'w': // ISO weeks start on Monday
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		start = d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
		next = start.AddDate(0, 0, 7)
	case 'M':
		start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		next = start.AddDate(0, 1, 0)
	case 'y':
		start = time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		next = start.AddDate(1, 0, 0)
	default:
		return time.Time{}, fmt.Errorf("unknown date unit %q (s m h d w M y)", unit)
	}
	if upper {
		return next.Add(-time.Nanosecond), nil
	}
	return start, nil
}
