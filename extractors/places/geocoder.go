package places

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/sams96/rgeo"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/gazetteer"
)

// Levels are the layers a geocoder answers from (GEOCODING_LEVELS); their
// cost is in the package doc.
type Levels struct {
	Countries, Provinces, Cities bool
}

// ParseLevels reads a comma-separated list of countries, provinces and
// cities.
func ParseLevels(s string) (Levels, error) {
	var l Levels
	for _, p := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(p)) {
		case "countries":
			l.Countries = true
		case "provinces", "regions":
			l.Provinces = true
		case "cities":
			l.Cities = true
		case "":
		default:
			return l, fmt.Errorf("GEOCODING_LEVELS: unknown level %q (want countries, provinces, cities)", p)
		}
	}
	if l == (Levels{}) {
		return l, fmt.Errorf("GEOCODING_LEVELS: no level in %q", s)
	}
	return l, nil
}

// Place is what a point is in. Empty fields are unknown (the sea, a level
// not loaded).
type Place struct {
	Country, CountryCode string
	Region, RegionCode   string
	City                 string
}

// Geocoder answers Place for a point from the levels it was made with,
// loading rgeo's polygons on first need, in the background (callers wait
// for them under their own context).
type Geocoder struct {
	levels Levels
	atlas  *gazetteer.Atlas
	layer  *layer
}

// layer is one of rgeo's datasets, loaded once per process whatever the
// number of geocoders (a registry configured again makes its extractors
// anew; the polygons are immutable and shared).
type layer struct {
	data func() []byte
	once sync.Once
	done chan struct{}
	geo  *rgeo.Rgeo
	err  error
}

var (
	loading        sync.Mutex
	countriesLayer = &layer{data: rgeo.Countries10, done: make(chan struct{})}
	provincesLayer = &layer{data: rgeo.Provinces10, done: make(chan struct{})} // holds the countries too
)

// NewGeocoder returns a geocoder; the gazetteer is read at once (it is
// small and also names countries), rgeo's polygons on first need.
func NewGeocoder(l Levels) (*Geocoder, error) {
	atlas, err := gazetteer.Default()
	if err != nil {
		return nil, err
	}
	g := &Geocoder{levels: l, atlas: atlas, layer: countriesLayer}
	if l.Provinces {
		g.layer = provincesLayer
	}
	return g, nil
}

// Lookup returns the place of a point. The only error is ctx's, while
// waiting for the polygons to load (marked Transient), or a failed load.
func (g *Geocoder) Lookup(ctx context.Context, lat, lon float64) (Place, error) {
	var p Place
	city, inCity := gazetteer.City{}, false
	if g.levels.Cities {
		city, inCity = g.atlas.CityAt(lat, lon)
		if inCity {
			p = Place{Country: city.Country, CountryCode: city.CountryCode, Region: city.Region, City: city.Name}
		}
	}
	// A city names its country and the region of its centre; the polygons
	// are loaded only for what it cannot say.
	if !g.levels.Provinces && (!g.levels.Countries || (inCity && p.Country != "")) {
		return p, nil
	}
	geo, err := g.polygons(ctx)
	if err != nil {
		return Place{}, err
	}
	loc, err := geo.ReverseGeocode([]float64{lon, lat})
	if err != nil {
		return p, nil // in no country: the sea, Antarctica's ice shelves
	}
	p.Country, p.CountryCode = loc.Country, cleanCode(loc.CountryCode2)
	if c, ok := g.atlas.CountryNamed(loc.Country); ok {
		p.CountryCode = c.A2
	}
	if g.levels.Provinces {
		p.Region, p.RegionCode = loc.Province, cleanCode(loc.ProvinceCode)
	}
	return p, nil
}

// cleanCode drops Natural Earth's "no code" values (-99, -1).
func cleanCode(c string) string {
	if c == "" || strings.HasPrefix(c, "-") {
		return ""
	}
	return c
}

// Load starts loading the polygons the geocoder's levels may need (none
// for cities alone) and waits for them under ctx, with the error Lookup
// would give. The load happens once per process whoever asks: a caller
// that calls Load first keeps the one-time load (seconds, a minute under
// the race detector on a busy machine) out of the time limit of the
// lookups that follow, as the tests do.
func (g *Geocoder) Load(ctx context.Context) error {
	if !g.levels.Countries && !g.levels.Provinces {
		return nil
	}
	_, err := g.polygons(ctx)
	return err
}

func (g *Geocoder) polygons(ctx context.Context) (*rgeo.Rgeo, error) {
	l := g.layer
	l.once.Do(func() { go l.load() })
	select {
	case <-l.done:
		return l.geo, l.err
	case <-ctx.Done():
		return nil, extractors.Transient(fmt.Errorf("waiting for the geocoding polygons: %w", ctx.Err()))
	}
}

// load builds rgeo's index. Decoding the GeoJSON makes several times the
// memory the index keeps: the collector runs more often meanwhile (workers
// run with GOGC=400) and the garbage is handed back to the system after.
func (l *layer) load() {
	defer close(l.done)
	loading.Lock() // one at a time: each restores the collector setting it found
	defer loading.Unlock()
	old := debug.SetGCPercent(50)
	defer func() {
		debug.SetGCPercent(old)
		debug.FreeOSMemory()
	}()
	defer func() {
		if v := recover(); v != nil {
			l.err = fmt.Errorf("load geocoding polygons: %v", v)
		}
	}()
	geo, err := rgeo.New(l.data)
	if err != nil {
		l.err = fmt.Errorf("load geocoding polygons: %w", err)
		return
	}
	geo.Build()
	l.geo = geo
}
