package search

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 3, 15, 14, 30, 45, 0, time.UTC) // a Sunday

func TestParseBound(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		in    string
		upper bool
		num   *float64
		at    time.Time
	}{
		{in: "42", num: ptr(42)},
		{in: " -1.5 ", num: ptr(-1.5)},
		{in: "1e9", num: ptr(1e9)},
		{in: "+.5", num: ptr(0.5)},
		{in: "2024", num: ptr(2024)},
		{in: "now", at: testNow},
		{in: "now-1h", at: testNow.Add(-time.Hour)},
		{in: "now+30m", at: testNow.Add(30 * time.Minute)},
		{in: "now-7d", at: testNow.AddDate(0, 0, -7)},
		{in: "now-2w", at: testNow.AddDate(0, 0, -14)},
		{in: "now-1M", at: testNow.AddDate(0, -1, 0)},
		{in: "now-1y", at: testNow.AddDate(-1, 0, 0)},
		{in: "now-90s", at: testNow.Add(-90 * time.Second)},
		{in: "now-3H", at: testNow.Add(-3 * time.Hour)},
		{in: "now-1M+2d", at: testNow.AddDate(0, -1, 2)},
		{in: "now/d", at: day(2026, 3, 15)},
		{in: "now/d", upper: true, at: day(2026, 3, 16).Add(-time.Nanosecond)},
		{in: "now-1d/d", at: day(2026, 3, 14)},
		{in: "now/w", at: day(2026, 3, 9)}, // Monday
		{in: "now/M", at: day(2026, 3, 1)},
		{in: "now/y", upper: true, at: day(2027, 1, 1).Add(-time.Nanosecond)},
		{in: "now/h", at: time.Date(2026, 3, 15, 14, 0, 0, 0, time.UTC)},
		{in: "2024-05-01", at: day(2024, 5, 1)},
		{in: "2024-05-01", upper: true, at: day(2024, 5, 2).Add(-time.Nanosecond)},
		{in: "2024-05-01T10:00:00Z", at: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)},
		{in: "2024-05-01T10:00:00+02:00", at: time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)},
		{in: "2024-05-01T10:00:00.250Z", at: time.Date(2024, 5, 1, 10, 0, 0, 250e6, time.UTC)},
		{in: "2024-05-01T10:00:00", at: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)},
		{in: "2024-05-01T10:00", at: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)},
	}
	for _, tc := range cases {
		b, err := ParseBound(tc.in, testNow, tc.upper)
		if err != nil {
			t.Errorf("ParseBound(%q): %v", tc.in, err)
			continue
		}
		if tc.num != nil {
			if b.Kind != KindNumber || b.Num != *tc.num {
				t.Errorf("ParseBound(%q) = %+v, want number %v", tc.in, b, *tc.num)
			}
			continue
		}
		if b.Kind != KindDate || !b.Time.Equal(tc.at) {
			t.Errorf("ParseBound(%q, upper=%v) = %v, want %v", tc.in, tc.upper, b.Time, tc.at)
		}
	}
	for _, bad := range []string{"", " ", "abc", "now-", "now-1", "now-1x", "now*2", "now-h", "now/", "now/q",
		"0x10", "Inf", "NaN", "1_000", "1e", "1e+", "--1", "1.2.3", "2024-13-01", "2024-02-30", "24-05-01",
		"now-99999999d", "now+9000y", "1e400", strings.Repeat("9", 70)} {
		if b, err := ParseBound(bad, testNow, false); err == nil {
			t.Errorf("ParseBound(%q) = %+v, want an error", bad, b)
		}
	}
}

func ptr(f float64) *float64 { return &f }

func TestBoundSeconds(t *testing.T) {
	b, _ := ParseBound("2024-01-01T00:00:00.5Z", testNow, false)
	if b.Seconds() != 1704067200.5 {
		t.Fatalf("seconds %v", b.Seconds())
	}
	b, _ = ParseBound("-3", testNow, false)
	if b.Seconds() != -3 {
		t.Fatalf("seconds %v", b.Seconds())
	}
}

// FuzzParseBound: never panics; what it accepts is a finite number, or an
// instant within years 1..9999 that an upper bound never places before the
// matching lower bound; numbers read back from their own rendering.
func FuzzParseBound(f *testing.F) {
	for _, s := range []string{"42", "-1.5e3", "now", "now-1h", "now+30m", "now-7d/d", "now-1M+2d/w",
		"2024-05-01", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00+02:00", "now-", "1e", "now/x", "2024-02-30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, errLo := ParseBound(s, testNow, false)
		hi, errHi := ParseBound(s, testNow, true)
		if (errLo == nil) != (errHi == nil) {
			t.Fatalf("%q: lower error %v, upper error %v", s, errLo, errHi)
		}
		if errLo != nil {
			return
		}
		if lo.Kind != hi.Kind {
			t.Fatalf("%q: kinds %v and %v", s, lo.Kind, hi.Kind)
		}
		switch lo.Kind {
		case KindNumber:
			if math.IsNaN(lo.Num) || math.IsInf(lo.Num, 0) || lo.Num != hi.Num {
				t.Fatalf("%q: number %v / %v", s, lo.Num, hi.Num)
			}
			again, err := ParseBound(strconv.FormatFloat(lo.Num, 'g', -1, 64), testNow, false)
			if err != nil || again.Num != lo.Num {
				t.Fatalf("%q: %v does not read back: %v %v", s, lo.Num, again, err)
			}
		case KindDate:
			if y := lo.Time.Year(); y < 1 || y > 9999 {
				t.Fatalf("%q: year %d", s, y)
			}
			if hi.Time.Before(lo.Time) {
				t.Fatalf("%q: upper %v before lower %v", s, hi.Time, lo.Time)
			}
			if math.IsNaN(lo.Seconds()) {
				t.Fatalf("%q: seconds NaN", s)
			}
		default:
			t.Fatalf("%q: kind %v", s, lo.Kind)
		}
	})
}
