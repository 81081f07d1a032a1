package places

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// The GPS JPEGs of goexif (see testdata/README.md). Their places were
// looked up by hand from the coordinates exiftool prints: 39.9156 N
// 116.3908 E is central Beijing, west of Tiananmen; 59.3325 N 18.0649 E is
// Norrmalm in central Stockholm; 52.0139 N 11.0028 E is farmland in the
// Börde district of Saxony-Anhalt, between Halberstadt and Magdeburg.
var gpsSamples = []struct {
	file                               string
	country, code, city, cityRegion    string
	provinceRegion, provinceRegionCode string
}{
	{"beijing-sample1.jpg", "China", "CN", "Beijing", "", "Beijing", "CN-BJ"}, // the urban area reaches into Hebei: no region from it
	{"stockholm-has-lens-info.jpg", "Sweden", "SE", "Stockholm", "Stockholm", "Stockholm", "SE-AB"},
	{"saxony-anhalt-geodegrees_as_string.jpg", "Germany", "DE", "", "", "Sachsen-Anhalt", "DE-ST"},
}

func TestGeocodingSamplesDefaultLevels(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil, "geocoding")
	loaded(t, reg)
	for _, s := range gpsSamples {
		path := filepath.Join("testdata", s.file)
		o := run(t, reg, "geocoding", path, exiftoolPrior(t, path))
		d := extractortest.Data(t, o)
		if str(d, "country.name") != s.country || str(d, "country.code") != s.code || str(d, "city") != s.city ||
			str(d, "region") != s.cityRegion || str(d, "source") != "exiv2" {
			t.Errorf("%s: %s", s.file, o.JSON)
		}
		if _, has := d["region_code"]; has {
			t.Errorf("%s: region_code without the provinces level: %s", s.file, o.JSON)
		}
	}
}

func TestGeocodingSamplesProvinces(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("loads rgeo's provinces (4 s of CPU, minutes under the race detector)")
	}
	t.Parallel()
	reg := registry(t, map[string]string{"GEOCODING_LEVELS": "provinces,cities"}, "geocoding")
	loaded(t, reg)
	for _, s := range gpsSamples {
		path := filepath.Join("testdata", s.file)
		o := run(t, reg, "geocoding", path, exiftoolPrior(t, path))
		d := extractortest.Data(t, o)
		if str(d, "country.code") != s.code || str(d, "city") != s.city || str(d, "region") != s.provinceRegion ||
			str(d, "region_code") != s.provinceRegionCode {
			t.Errorf("%s: %s", s.file, o.JSON)
		}
	}
	// France is "-99" in Natural Earth's ISO_A2.
	g := geoOf(t, reg)
	p, err := g.Lookup(context.Background(), 48.8584, 2.2945)
	if err != nil || p.CountryCode != "FR" || p.Region != "Paris" || p.RegionCode != "FR-75" {
		t.Errorf("Eiffel Tower: %+v %v", p, err)
	}
}

// loaded waits, without a time limit, for the polygons of the geocoding
// extractor of reg: the one-time load (a minute under the race detector
// on a busy machine) is not what the time limit of a run is for.
func loaded(t *testing.T, reg *extractors.Registry) {
	t.Helper()
	if err := geoOf(t, reg).Load(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// geoOf is the geocoder of a registry's geocoding extractor.
func geoOf(t *testing.T, reg *extractors.Registry) *Geocoder {
	t.Helper()
	info, _ := reg.Get("geocoding")
	x, err := info.New(extractors.Env{Settings: reg.Settings("geocoding"), Runner: extractors.NewRunner(1)})
	if err != nil {
		t.Fatal(err)
	}
	return x.(*geocoding).geo
}

func TestGeocoderHandMadePoints(t *testing.T) {
	t.Parallel()
	g, err := NewGeocoder(Levels{Countries: true, Cities: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		lat, lon float64
		want     Place
	}{
		{"Eiffel Tower", 48.8584, 2.2945, Place{Country: "France", CountryCode: "FR", City: "Paris"}},
		{"Tokyo Station", 35.6812, 139.7671, Place{Country: "Japan", CountryCode: "JP", City: "Tokyo"}},
		{"mid-Atlantic", 30, -30, Place{}},
		{"Gulf of Guinea (0, 0 itself)", 0, 0, Place{}},
		{"Massif Central, no city", 45.0, 2.8, Place{Country: "France", CountryCode: "FR"}},
		{"Norwegian fjells (Norway is -99 in ISO_A2)", 61.5, 8.5, Place{Country: "Norway", CountryCode: "NO"}},
		{"Sahara", 23.4, 25.7, Place{Country: "Egypt", CountryCode: "EG"}},
	}
	// Concurrent first lookups share one load of the polygons.
	var wg sync.WaitGroup
	got := make([]Place, len(cases))
	errs := make([]error, len(cases))
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = g.Lookup(context.Background(), c.lat, c.lon)
		}()
	}
	wg.Wait()
	for i, c := range cases {
		if errs[i] != nil || got[i] != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.name, got[i], errs[i], c.want)
		}
	}
}

func TestGeocoderWaitsUnderContext(t *testing.T) {
	t.Parallel()
	g, err := NewGeocoder(Levels{Countries: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = g.Lookup(ctx, 61.5, 8.5)
	if err == nil {
		// The load finished first (a fast machine): nothing to wait for.
		return
	}
	if !extractors.IsTransient(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v, want a transient context error", err)
	}
}

func TestGeocodingVideoLocationTag(t *testing.T) {
	t.Parallel()
	// A QuickTime ©xyz location, written by ffmpeg as phones write it.
	path := extractortest.Clip(t, "clip.mov", "-f", "lavfi", "-i", "color=c=red:s=64x64:d=0.2",
		"-metadata", "location=+35.6812+139.7671+040.000/")
	reg := registry(t, map[string]string{"GEOCODING_LEVELS": "cities"}, "geocoding")
	o := run(t, reg, "geocoding", path, nil)
	d := extractortest.Data(t, o)
	if str(d, "city") != "Tokyo" || str(d, "country.code") != "JP" || str(d, "source") != "ffprobe" {
		t.Errorf("video: %s", o.JSON)
	}
	locs, _ := d["locations"].([]any)
	if len(locs) != 2 { // Tokyo (city and region), Japan
		t.Errorf("locations: %v", locs)
	}
}

func TestGeocodingWithoutPosition(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil, "geocoding")
	path := filepath.Join("testdata", "beijing-sample1.jpg")
	for _, prior := range []map[string]json.RawMessage{nil, {"exiv2": json.RawMessage(`{"gps":{"latitude":0,"longitude":0}}`)},
		{"exiv2": json.RawMessage(`{"gps":{"latitude":95,"longitude":0}}`)}, {"exiv2": json.RawMessage(`{"camera":{}}`)}} {
		o := run(t, reg, "geocoding", path, prior)
		if !errors.Is(o.Err, extractors.ErrUnsupported) {
			t.Errorf("prior %s: %v, want unsupported", prior["exiv2"], o.Err)
		}
	}
}

func TestGeocodingBadLevels(t *testing.T) {
	t.Parallel()
	reg := registry(t, map[string]string{"GEOCODING_LEVELS": "streets"}, "geocoding")
	path := filepath.Join("testdata", "beijing-sample1.jpg")
	o := run(t, reg, "geocoding", path, exiftoolPrior(t, path))
	if !errors.Is(o.Err, extractors.ErrUnavailable) {
		t.Errorf("unknown level: %v", o.Err)
	}
}

func TestSuite(t *testing.T) {
	t.Parallel()
	reg := registry(t, map[string]string{"WEATHER_API_URL": "http://127.0.0.1:1", "WEATHER_API_KEY": "k"}, "geocoding", "weather")
	samples, _ := filepath.Glob("testdata/*.jpg")
	extractortest.Suite(t, reg, samples)
}
