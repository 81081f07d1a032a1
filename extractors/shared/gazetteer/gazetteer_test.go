package gazetteer

import (
	"bytes"
	"compress/gzip"
	"runtime"
	"testing"
)

func TestCityAt(t *testing.T) {
	t.Parallel()
	a, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	// Expected places are the well-known ones at these coordinates.
	cases := []struct {
		name              string
		lat, lon          float64
		city, code, regio string
	}{
		{"Eiffel Tower", 48.8584, 2.2945, "Paris", "FR", ""},       // over four departments: no single region,
		{"Tokyo Station", 35.6812, 139.7671, "Tokyo", "JP", ""},    // over four prefectures,
		{"Trafalgar Square", 51.5080, -0.1281, "London", "GB", ""}, // over many boroughs
		{"Times Square", 40.7580, -73.9855, "New York", "US", ""},  // New York and New Jersey,
		{"Stockholm, Norrmalm", 59.3325, 18.0649, "Stockholm", "SE", "Stockholm"},
		{"Zhengzhou, inside the merged \"Beijing\" urban area", 34.7466, 113.6253, "Zhengzhou", "CN", "Henan"},
		{"Sydney Town Hall", -33.8732, 151.2061, "Sydney", "AU", "New South Wales"},
		{"Nice, Promenade des Anglais", 43.6950, 7.2650, "Nice", "FR", "Alpes-Maritimes"},
	}
	for _, c := range cases {
		got, ok := a.CityAt(c.lat, c.lon)
		if !ok || got.Name != c.city || got.CountryCode != c.code || got.Region != c.regio {
			t.Errorf("%s: got %+v (found %v), want %s, %s, %s", c.name, got.Name+"/"+got.CountryCode+"/"+got.Region, ok, c.city, c.code, c.regio)
		}
	}
	for _, p := range [][2]float64{{30, -30}, {0, 0}, {-89, 0}, {90, 180}, {-90, -180}} {
		if got, ok := a.CityAt(p[0], p[1]); ok {
			t.Errorf("%v: got %s, want no city (sea, pole)", p, got.Name)
		}
	}
}

func TestCountries(t *testing.T) {
	t.Parallel()
	a, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	// Natural Earth gives France and Norway the code -99 in ISO_A2; the
	// gazetteer keeps the ISO_A2_EH codes instead.
	for name, want := range map[string]string{"France": "FR", "Norway": "NO", "Japan": "JP", "Germany": "DE"} {
		c, ok := a.CountryNamed(name)
		if !ok || c.A2 != want {
			t.Errorf("%s: %+v, want %s", name, c, want)
		}
	}
	for _, c := range a.Countries {
		if c.A2 == "-99" || c.A3 == "-99" {
			t.Errorf("%s kept code -99", c.Name)
		}
	}
	if len(a.Countries) < 200 || len(a.Regions) < 3000 || len(a.Cities) < 5000 {
		t.Errorf("%d countries, %d regions, %d cities", len(a.Countries), len(a.Regions), len(a.Cities))
	}
}

func TestParseRefusesDamage(t *testing.T) {
	t.Parallel()
	for _, in := range [][]byte{nil, []byte("not gzip"), gz([]byte("MHGAZ0")), gz([]byte("MHGAZ1\xff\xff\xff\xff\x0f")),
		embedded[:len(embedded)/2]} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%.20q) accepted", in)
		}
	}
}

func TestMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a, err := Parse(embedded)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("gazetteer holds %.1f MB (%d cities)", float64(held)/(1<<20), len(a.Cities))
	if held > 32<<20 {
		t.Errorf("gazetteer holds %d bytes, want under 32 MiB", held)
	}
	runtime.KeepAlive(a)
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func FuzzParse(f *testing.F) {
	f.Add(gz([]byte("MHGAZ1\x00\x00\x00")))
	f.Add(gz([]byte("MHGAZ1\x01\x02FR\x02FR\x03FRA\x00\x00\x01\x01P\x00\x00\x00\x02\x02\x02\x02\x02\x02\x01\x03\x02\x02\x02\x00\x00\x02")))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := Parse(in)
		if err != nil {
			return
		}
		for i := range a.Cities {
			c := a.Cities[i]
			a.CityAt(c.Lat, c.Lon)
		}
	})
}
