// Command gen writes the gazetteer data file from the Natural Earth layers
// embedded in github.com/sams96/rgeo (see the gazetteer package doc).
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"

	"log"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/sams96/rgeo"
)

// tolerance of the outline simplification, in 1e-5 degrees (about 650 m):
// the outlines are traced along a 30" raster (about 900 m), whose stair
// steps this smooths.
const tolerance = 600

type feature struct {
	Properties map[string]any `json:"properties"`
	Geometry   struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
}

func main() {
	out := flag.String("o", "gazetteer.bin.gz", "output file")
	flag.Parse()
	countries := read(rgeo.Countries10())
	provinces := read(rgeo.Provinces10())
	cities := read(rgeo.Cities10())

	var buf bytes.Buffer
	w := &writer{w: &buf}
	buf.WriteString("MHGAZ1")

	// Countries, with the "EH" codes where the plain ones are -99 (France,
	// Norway, Kosovo in this edition).
	type country struct {
		name, a2, a3 string
		other        []string
	}
	var cs []country
	codes := map[string][2]string{}
	for _, f := range countries {
		p := f.Properties
		c := country{name: str(p, "ADMIN"), a2: code(str(p, "ISO_A2"), str(p, "ISO_A2_EH")), a3: code(str(p, "ISO_A3"), str(p, "ISO_A3_EH"))}
		for _, k := range []string{"NAME", "NAME_EN", "NAME_LONG", "FORMAL_EN", "GEOUNIT", "SOVEREIGNT"} {
			if v := str(p, k); v != "" && v != c.name && !contains(c.other, v) {
				c.other = append(c.other, v)
			}
		}
		if c.name == "" {
			continue
		}
		codes[c.name] = [2]string{c.a2, c.a3}
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	w.uvarint(uint64(len(cs)))
	for _, c := range cs {
		w.str(c.name)
		w.str(c.a2)
		w.str(c.a3)
		w.uvarint(uint64(len(c.other)))
		for _, o := range c.other {
			w.str(o)
		}
	}

	regions := map[string]bool{}
	for _, f := range provinces {
		if n := str(f.Properties, "name"); n != "" {
			regions[n] = true
		}
	}
	names := make([]string, 0, len(regions))
	for n := range regions {
		names = append(names, n)
	}
	sort.Strings(names)
	w.uvarint(uint64(len(names)))
	for _, n := range names {
		w.str(n)
	}

	log.Printf("loading the province layer to name the region of %d cities", len(cities))
	geo, err := rgeo.New(rgeo.Provinces10)
	if err != nil {
		log.Fatal(err)
	}
	type city struct {
		name, country, code, region string
		lat, lon                    int64
		box                         [4]int64
		rings                       [][][2]int64
	}
	var out2 []city
	points := 0
	for _, f := range cities {
		// Natural Earth numbers the parts of some areas ("Sydney1", "Paris2").
		name := strings.TrimRight(str(f.Properties, "name_conve"), "0123456789 ")
		if name == "" {
			continue
		}
		rings, hole := ringsOf(f)
		var kept [][][2]int64
		for i, r := range rings {
			s := simplify(r, hole[i])
			if len(s) >= 3 {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			continue
		}
		c := city{name: name, box: [4]int64{math.MaxInt64, math.MaxInt64, math.MinInt64, math.MinInt64}, rings: kept}
		for _, r := range kept {
			points += len(r)
			for _, p := range r {
				c.box[0], c.box[1] = min(c.box[0], p[0]), min(c.box[1], p[1])
				c.box[2], c.box[3] = max(c.box[2], p[0]), max(c.box[3], p[1])
			}
		}
		// Urban areas traced on a raster merge into regional blobs (the
		// "Beijing" area covers the North China Plain down to Henan): a
		// point is in the city only inside its core, the smaller of the two
		// bounding boxes Natural Earth gives, widened by coreMargin.
		core := coreBox(f.Properties, c.box)
		c.box = [4]int64{max(c.box[0], core[0]), max(c.box[1], core[1]), min(c.box[2], core[2]), min(c.box[3], core[3])}
		if c.box[0] > c.box[2] || c.box[1] > c.box[3] {
			continue
		}
		c.lat, c.lon = labelPoint(kept, (core[0]+core[2])/2, (core[1]+core[3])/2)
		// The country is the one of most of the city; the region only
		// when nearly all of it lies in one (Paris spreads over four
		// departments, Tokyo over four prefectures: no region for them).
		countryVotes, regionVotes, samples := map[string]int{}, map[string]int{}, 0
		for i := 0; i <= 6; i++ {
			for j := 0; j <= 6; j++ {
				y := c.box[0] + (c.box[2]-c.box[0])*int64(i)/6
				x := c.box[1] + (c.box[3]-c.box[1])*int64(j)/6
				if !inside(kept, float64(y), float64(x)) && !(y == c.lat && x == c.lon) {
					continue
				}
				loc, err := geo.ReverseGeocode([]float64{float64(x) / 1e5, float64(y) / 1e5})
				if err != nil {
					continue
				}
				samples++
				countryVotes[loc.Country]++
				regionVotes[loc.Province]++
				if loc.CountryCode2 != "" && codes[loc.Country][0] == "" {
					codes[loc.Country] = [2]string{code(loc.CountryCode2, ""), ""}
				}
			}
		}
		if loc, err := geo.ReverseGeocode([]float64{float64(c.lon) / 1e5, float64(c.lat) / 1e5}); err == nil {
			samples++
			countryVotes[loc.Country]++
			regionVotes[loc.Province]++
		}
		c.country, _ = majority(countryVotes, samples, 0.5)
		c.region, _ = majority(regionVotes, samples, 0.9)
		c.code = codes[c.country][0]
		out2 = append(out2, c)
	}
	sort.Slice(out2, func(i, j int) bool {
		if out2[i].name != out2[j].name {
			return out2[i].name < out2[j].name
		}
		return out2[i].lat < out2[j].lat
	})
	w.uvarint(uint64(len(out2)))
	for _, c := range out2 {
		w.str(c.name)
		w.str(c.country)
		w.str(c.code)
		w.str(c.region)
		w.varint(c.lat)
		w.varint(c.lon)
		for _, v := range c.box {
			w.varint(v)
		}
		w.uvarint(uint64(len(c.rings)))
		for _, r := range c.rings {
			w.uvarint(uint64(len(r)))
			var py, px int64
			for _, p := range r {
				w.varint(p[0] - py)
				w.varint(p[1] - px)
				py, px = p[0], p[1]
			}
		}
	}

	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.Write(buf.Bytes())
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d countries, %d regions, %d cities, %d points, %d bytes before gzip", len(cs), len(names), len(out2), points, buf.Len())
}

func read(gz []byte) []feature {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		log.Fatal(err)
	}
	var fc struct {
		Features []feature `json:"features"`
	}
	if err := json.NewDecoder(bufio.NewReader(zr)).Decode(&fc); err != nil {
		log.Fatal(err)
	}
	return fc.Features
}

func str(p map[string]any, k string) string {
	s, _ := p[k].(string)
	return strings.TrimSpace(s)
}

// code cleans Natural Earth's "-99" (no code) and falls back to alt.
func code(v, alt string) string {
	if v == "" || strings.HasPrefix(v, "-") {
		v = alt
	}
	if strings.HasPrefix(v, "-") {
		return ""
	}
	return v
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ringsOf returns the rings of a Polygon or MultiPolygon as lat, lon pairs
// in 1e-5 degrees, without the repeated closing point.
func ringsOf(f feature) (rings [][][2]int64, hole []bool) {
	var polys [][][][]float64
	switch f.Geometry.Type {
	case "Polygon":
		var p [][][]float64
		if err := json.Unmarshal(f.Geometry.Coordinates, &p); err != nil {
			log.Fatal(err)
		}
		polys = [][][][]float64{p}
	case "MultiPolygon":
		if err := json.Unmarshal(f.Geometry.Coordinates, &polys); err != nil {
			log.Fatal(err)
		}
	default:
		return nil, nil
	}
	var out [][][2]int64
	for _, p := range polys {
		for i, ring := range p {
			var r [][2]int64
			for _, c := range ring {
				if len(c) < 2 {
					continue
				}
				r = append(r, [2]int64{int64(math.Round(c[1] * 1e5)), int64(math.Round(c[0] * 1e5))})
			}
			if len(r) > 1 && r[0] == r[len(r)-1] {
				r = r[:len(r)-1]
			}
			out = append(out, r)
			hole = append(hole, i > 0)
		}
	}
	return out, hole
}

// simplify is Douglas-Peucker on a closed ring, split at the vertex
// farthest from the first. An outline smaller than the tolerance becomes
// its bounding box, a hole that small is filled (nil).
func simplify(r [][2]int64, hole bool) [][2]int64 {
	if len(r) < 3 {
		return nil
	}
	far, best := 0, -1.0
	for i, p := range r {
		d := math.Hypot(float64(p[0]-r[0][0]), float64(p[1]-r[0][1]))
		if d > best {
			far, best = i, d
		}
	}
	if best < tolerance {
		if hole {
			return nil
		}
		return box(r)
	}
	closed := append(append([][2]int64{}, r...), r[0])
	a := dp(closed[:far+1])
	b := dp(closed[far:])
	out := append(a[:len(a)-1], b[:len(b)-1]...)
	if len(out) < 3 {
		if hole {
			return nil
		}
		return box(r)
	}
	return out
}

// box is the bounding rectangle of a ring, as a ring.
func box(r [][2]int64) [][2]int64 {
	lo, hi := r[0], r[0]
	for _, p := range r {
		lo = [2]int64{min(lo[0], p[0]), min(lo[1], p[1])}
		hi = [2]int64{max(hi[0], p[0]), max(hi[1], p[1])}
	}
	return [][2]int64{lo, {lo[0], hi[1]}, hi, {hi[0], lo[1]}}
}

// dp returns a new slice: its results are appended to one another.
func dp(pts [][2]int64) [][2]int64 {
	if len(pts) <= 2 {
		return append([][2]int64(nil), pts...)
	}
	first, last := pts[0], pts[len(pts)-1]
	idx, best := 0, -1.0
	for i := 1; i < len(pts)-1; i++ {
		d := segDist(pts[i], first, last)
		if d > best {
			idx, best = i, d
		}
	}
	if best <= tolerance {
		return [][2]int64{first, last}
	}
	a := dp(pts[:idx+1])
	b := dp(pts[idx:])
	return append(a[:len(a)-1], b...)
}

func segDist(p, a, b [2]int64) float64 {
	px, py := float64(p[1]), float64(p[0])
	ax, ay := float64(a[1]), float64(a[0])
	bx, by := float64(b[1]), float64(b[0])
	dx, dy := bx-ax, by-ay
	if dx == 0 && dy == 0 {
		return math.Hypot(px-ax, py-ay)
	}
	t := ((px-ax)*dx + (py-ay)*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	return math.Hypot(px-(ax+t*dx), py-(ay+t*dy))
}

// majority returns the value with at least share of the votes.
func majority(votes map[string]int, total int, share float64) (string, bool) {
	for v, n := range votes {
		if v != "" && float64(n) >= share*float64(total) && total > 0 {
			return v, true
		}
	}
	return "", false
}

// coreMargin widens a city's core box, in 1e-5 degrees (about 5 km).
const coreMargin = 5000

// coreBox is the smaller of the min_bb_* and max_bb_* boxes of an urban
// area (which of the two is the core varies), widened by coreMargin; the
// outline's box when they are missing.
func coreBox(p map[string]any, outline [4]int64) [4]int64 {
	box := func(prefix string) ([4]int64, bool) {
		var v [4]float64
		for i, k := range []string{"ymi", "xmi", "yma", "xma"} {
			f, ok := p[prefix+k].(float64)
			if !ok {
				return [4]int64{}, false
			}
			v[i] = f
		}
		return [4]int64{int64(v[0]*1e5) - coreMargin, int64(v[1]*1e5) - coreMargin, int64(v[2]*1e5) + coreMargin, int64(v[3]*1e5) + coreMargin}, true
	}
	a, okA := box("min_bb_")
	b, okB := box("max_bb_")
	size := func(x [4]int64) int64 { return (x[2] - x[0]) * (x[3] - x[1]) }
	switch {
	case okA && okB && size(b) < size(a):
		return b
	case okA:
		return a
	case okB:
		return b
	}
	return outline
}

// labelPoint is the centre of the core box when it lies inside the
// outline, else the outline's vertex nearest to it: where the city's
// country and region are looked up.
func labelPoint(rings [][][2]int64, cy, cx int64) (lat, lon int64) {
	if inside(rings, float64(cy), float64(cx)) {
		return cy, cx
	}
	best, bd := rings[0][0], math.Inf(1)
	for _, r := range rings {
		for _, p := range r {
			if d := math.Hypot(float64(p[0]-cy), float64(p[1]-cx)); d < bd {
				best, bd = p, d
			}
		}
	}
	return best[0], best[1]
}

func inside(rings [][][2]int64, y, x float64) bool {
	in := false
	for _, r := range rings {
		for i, j := 0, len(r)-1; i < len(r); j, i = i, i+1 {
			yi, xi, yj, xj := float64(r[i][0]), float64(r[i][1]), float64(r[j][0]), float64(r[j][1])
			if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
				in = !in
			}
		}
	}
	return in
}

type writer struct{ w *bytes.Buffer }

func (w *writer) uvarint(v uint64) { w.w.Write(binary.AppendUvarint(nil, v)) }
func (w *writer) varint(v int64)   { w.w.Write(binary.AppendVarint(nil, v)) }
func (w *writer) str(s string) {
	if len(s) > 1024 {
		s = s[:1024]
	}
	w.uvarint(uint64(len(s)))
	w.w.WriteString(s)
}
