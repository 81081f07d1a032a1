package places

import (
	"math"
	"testing"
)

func TestParseISO6709(t *testing.T) {
	t.Parallel()
	ok := []struct {
		in       string
		lat, lon float64
	}{
		{"+48.8584+002.2945/", 48.8584, 2.2945},                // ffmpeg, QuickTime ©xyz
		{"+35.6895+139.6917+040.000/", 35.6895, 139.6917},      // with altitude
		{"+40.7128-074.0060/", 40.7128, -74.006},               // west
		{"-33.8688+151.2093+012.5/", -33.8688, 151.2093},       // south
		{"+48.85+2.29/", 48.85, 2.29},                          // leading zeros dropped
		{"+4851.504+00217.670/", 48 + 51.504/60, 2 + 17.67/60}, // degrees and minutes
		{"+485130.24+0021740.20/", 48 + 51.0/60 + 30.24/3600, 2 + 17.0/60 + 40.2/3600},
		{"+27.5916+086.5640+8850CRSWGS_84/", 27.5916, 86.564}, // ISO 6709 annex H example
		{"+00-025/", 0, -25},
		{" +48.8584+002.2945/ ", 48.8584, 2.2945},
	}
	for _, c := range ok {
		lat, lon, err := ParseISO6709(c.in)
		if err != nil || math.Abs(lat-c.lat) > 1e-9 || math.Abs(lon-c.lon) > 1e-9 {
			t.Errorf("%q: %v %v %v, want %v %v", c.in, lat, lon, err, c.lat, c.lon)
		}
	}
	for _, in := range []string{"", "/", "48.8584,2.2945", "+48.8584/", "+91.0+000.0/", "+45.0+181.0/",
		"+4890.00+00200.00/", "+48.8584+002.2945+x/", "+48.8.584+002.2945/", "++48+2/", "+123456789+2/",
		"+48.8584+002.2945+1+2/", "+.5+2/", "+48e1+2/"} {
		if lat, lon, err := ParseISO6709(in); err == nil {
			t.Errorf("%q accepted: %v %v", in, lat, lon)
		}
	}
}

func FuzzParseISO6709(f *testing.F) {
	for _, s := range []string{"+48.8584+002.2945/", "+35.6895+139.6917+040.000/", "+4851.504+00217.670/",
		"+485130.24+0021740.20/", "+27.5916+086.5640+8850CRSWGS_84/", "-", "+-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lat, lon, err := ParseISO6709(s)
		if err != nil {
			return
		}
		if math.IsNaN(lat) || math.IsNaN(lon) || math.Abs(lat) > 90 || math.Abs(lon) > 180 {
			t.Fatalf("%q gave %v %v", s, lat, lon)
		}
	})
}
