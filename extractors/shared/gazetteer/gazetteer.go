package gazetteer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
)

//go:generate go run ./gen -o gazetteer.bin.gz

//go:embed gazetteer.bin.gz
var embedded []byte

// Country is a country of Natural Earth with its ISO 3166-1 codes ("" when
// it has none, as for Northern Cyprus or Somaliland).
type Country struct {
	Name string
	A2   string
	A3   string
	// Other names (the formal name, the long name) for text analysis.
	Other []string
}

// City is an urban area: its name, where it lies, a label point inside it
// and its simplified outline.
type City struct {
	Name        string
	Country     string
	CountryCode string // ISO 3166-1 alpha-2, "" when unknown
	Region      string // first-level region (state, province) when nearly all the city lies in one, else ""

	Lat, Lon float64

	box   [4]int32  // minLat, minLon, maxLat, maxLon
	rings [][]int32 // lat, lon pairs
}

// Atlas is the parsed data. It is read-only and safe for concurrent use.
type Atlas struct {
	Countries []Country
	Regions   []string
	Cities    []City

	countryByName map[string]int
}

var (
	defaultOnce  sync.Once
	defaultAtlas *Atlas
	defaultErr   error
)

// Default returns the atlas shipped with metaharvest, parsed on first use
// (a few milliseconds).
func Default() (*Atlas, error) {
	defaultOnce.Do(func() { defaultAtlas, defaultErr = Parse(embedded) })
	return defaultAtlas, defaultErr
}

// CountryNamed returns the country whose Natural Earth name (rgeo's
// Location.Country) is name.
func (a *Atlas) CountryNamed(name string) (Country, bool) {
	i, ok := a.countryByName[name]
	if !ok {
		return Country{}, false
	}
	return a.Countries[i], true
}

// CityAt returns the urban area that contains the point, the smallest one
// when outlines overlap.
func (a *Atlas) CityAt(lat, lon float64) (City, bool) {
	if math.IsNaN(lat) || math.IsNaN(lon) || math.Abs(lat) > 90 || math.Abs(lon) > 180 {
		return City{}, false
	}
	y, x := int32(math.Round(lat*scale)), int32(math.Round(lon*scale))
	best, bestArea := -1, int64(math.MaxInt64)
	for i := range a.Cities {
		c := &a.Cities[i]
		if y < c.box[0] || x < c.box[1] || y > c.box[2] || x > c.box[3] {
			continue
		}
		if !c.contains(lat*scale, lon*scale) {
			continue
		}
		area := int64(c.box[2]-c.box[0]) * int64(c.box[3]-c.box[1])
		if area < bestArea {
			best, bestArea = i, area
		}
	}
	if best < 0 {
		return City{}, false
	}
	return a.Cities[best], true
}

// contains is the even-odd rule over every ring (holes included), with
// edges straight in latitude and longitude as GeoJSON draws them.
func (c *City) contains(y, x float64) bool {
	in := false
	for _, r := range c.rings {
		n := len(r) / 2
		for i, j := 0, n-1; i < n; j, i = i, i+1 {
			yi, xi := float64(r[2*i]), float64(r[2*i+1])
			yj, xj := float64(r[2*j]), float64(r[2*j+1])
			if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
				in = !in
			}
		}
	}
	return in
}

// Parse reads a data file (see format.go).
func Parse(gz []byte) (*Atlas, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("gazetteer: %w", err)
	}
	r := &reader{r: bufio.NewReader(io.LimitReader(zr, 64<<20))}
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r.r, head); err != nil || string(head) != magic {
		return nil, errors.New("gazetteer: not a gazetteer file")
	}
	a := &Atlas{countryByName: map[string]int{}}
	n := r.count(maxCountries)
	for i := 0; i < n && r.err == nil; i++ {
		c := Country{Name: r.str(), A2: r.str(), A3: r.str()}
		k := r.count(16)
		for j := 0; j < k && r.err == nil; j++ {
			c.Other = append(c.Other, r.str())
		}
		a.countryByName[c.Name] = len(a.Countries)
		a.Countries = append(a.Countries, c)
	}
	n = r.count(maxRegions)
	for i := 0; i < n && r.err == nil; i++ {
		a.Regions = append(a.Regions, r.str())
	}
	n = r.count(maxCities)
	total := 0
	for i := 0; i < n && r.err == nil; i++ {
		c := City{Name: r.str(), Country: r.str(), CountryCode: r.str(), Region: r.str()}
		c.Lat, c.Lon = float64(r.coord(90))/scale, float64(r.coord(180))/scale
		c.box = [4]int32{r.coord(90), r.coord(180), r.coord(90), r.coord(180)}
		rings := r.count(maxRings)
		for j := 0; j < rings && r.err == nil; j++ {
			pts := r.count(maxPoints)
			total += pts
			if total > maxTotalPts {
				return nil, errors.New("gazetteer: too many points")
			}
			ring := make([]int32, 0, 2*pts)
			var y, x int64
			for k := 0; k < pts && r.err == nil; k++ {
				y += r.varint()
				x += r.varint()
				if y < -90*scale || y > 90*scale || x < -180*scale || x > 180*scale {
					r.fail("coordinate out of range")
				}
				ring = append(ring, int32(y), int32(x))
			}
			c.rings = append(c.rings, ring)
		}
		a.Cities = append(a.Cities, c)
	}
	if r.err != nil {
		return nil, fmt.Errorf("gazetteer: %w", r.err)
	}
	return a, nil
}

// reader decodes the primitives of the format, keeping the first error.
type reader struct {
	r   *bufio.Reader
	err error
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg)
	}
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(r.r)
	if err != nil {
		r.err = fmt.Errorf("truncated: %w", err)
	}
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, err := binary.ReadVarint(r.r)
	if err != nil {
		r.err = fmt.Errorf("truncated: %w", err)
	}
	return v
}

func (r *reader) count(max int) int {
	v := r.uvarint()
	if v > uint64(max) {
		r.fail(fmt.Sprintf("count %d over %d", v, max))
		return 0
	}
	return int(v)
}

func (r *reader) coord(limit int64) int32 {
	v := r.varint()
	if v < -limit*scale || v > limit*scale {
		r.fail("coordinate out of range")
		return 0
	}
	return int32(v)
}

func (r *reader) str() string {
	n := r.count(maxString)
	if r.err != nil || n == 0 {
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err = fmt.Errorf("truncated: %w", err)
		return ""
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
