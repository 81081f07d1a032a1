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
		c.lat, c.lon = labelPoint(kept)
		loc, err := geo.ReverseGeocode([]float64{float64(c.lon) / 1e5, float64(c.lat) / 1e5})
		if err == nil {
			c.country, c.region = loc.Country, loc.Province
			c.code = codes[loc.Country][0]
			if c.code == "" {
				c.code = code(loc.CountryCode2, "")
			}
		}
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

// labelPoint is the centroid of the largest ring when it lies inside the
// outline, else the vertex of that ring nearest to it.
func labelPoint(rings [][][2]int64) (lat, lon int64) {
	big, bigArea := 0, -1.0
	for i, r := range rings {
		if a := math.Abs(area(r)); a > bigArea {
			big, bigArea = i, a
		}
	}
	r := rings[big]
	var cx, cy, a float64
	for i := range r {
		j := (i + 1) % len(r)
		x0, y0, x1, y1 := float64(r[i][1]), float64(r[i][0]), float64(r[j][1]), float64(r[j][0])
		cross := x0*y1 - x1*y0
		a += cross
		cx += (x0 + x1) * cross
		cy += (y0 + y1) * cross
	}
	if a != 0 {
		cx, cy = cx/(3*a), cy/(3*a)
		if inside(rings, cy, cx) {
			return int64(math.Round(cy)), int64(math.Round(cx))
		}
	}
	best, bd := r[0], math.Inf(1)
	for _, p := range r {
		if d := math.Hypot(float64(p[0])-cy, float64(p[1])-cx); d < bd {
			best, bd = p, d
		}
	}
	return best[0], best[1]
}

func area(r [][2]int64) float64 {
	var a float64
	for i := range r {
		j := (i + 1) % len(r)
		a += float64(r[i][1])*float64(r[j][0]) - float64(r[j][1])*float64(r[i][0])
	}
	return a / 2
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
