package export

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Picture is what an XMP sidecar says of a picture: the item's MIME type
// and the metadata the extractors wrote (exiv2's EXIF, IPTC and XMP
// reading, the geocoding of its position).
type Picture struct {
	MimeType string
	Metadata map[string]any
}

// xmpNamespaces are the schemas a sidecar uses, by prefix.
var xmpNamespaces = [][2]string{
	{"dc", "http://purl.org/dc/elements/1.1/"},
	{"xmp", "http://ns.adobe.com/xap/1.0/"},
	{"tiff", "http://ns.adobe.com/tiff/1.0/"},
	{"exif", "http://ns.adobe.com/exif/1.0/"},
	{"exifEX", "http://cipa.jp/exif/1.0/"},
	{"photoshop", "http://ns.adobe.com/photoshop/1.0/"},
}

// XMP writes a picture's metadata as an XMP sidecar (an XMP packet that
// photo tools read beside the file): title, description, creator,
// rights and keywords (Dublin Core), capture time with its zone, camera,
// lens and exposure (TIFF and EXIF), GPS position and altitude, and the
// place the geocoding named (Photoshop city, state, country). What the
// extractors did not find is left out.
func XMP(w io.Writer, p Picture) error {
	m := p.Metadata
	var b strings.Builder
	b.WriteString("<?xpacket begin=\"\ufeff\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n")
	b.WriteString("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n  <rdf:Description rdf:about=\"\"")
	for _, ns := range xmpNamespaces {
		fmt.Fprintf(&b, "\n    xmlns:%s=%q", ns[0], ns[1])
	}
	b.WriteString(">\n")
	simple := func(name, value string) {
		if value = strings.TrimSpace(value); value != "" {
			fmt.Fprintf(&b, "   <%s>%s</%s>\n", name, esc(value), name)
		}
	}
	container := func(name, kind string, values []string) {
		var kept []string
		for _, v := range values {
			if v = strings.TrimSpace(v); v != "" {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			return
		}
		fmt.Fprintf(&b, "   <%s>\n    <rdf:%s>\n", name, kind)
		for _, v := range kept {
			if kind == "Alt" {
				fmt.Fprintf(&b, "     <rdf:li xml:lang=\"x-default\">%s</rdf:li>\n", esc(v))
			} else {
				fmt.Fprintf(&b, "     <rdf:li>%s</rdf:li>\n", esc(v))
			}
		}
		fmt.Fprintf(&b, "    </rdf:%s>\n   </%s>\n", kind, name)
	}

	simple("dc:format", p.MimeType)
	container("dc:title", "Alt", []string{text(m, "exiv2.title")})
	container("dc:description", "Alt", []string{text(m, "exiv2.description")})
	container("dc:creator", "Seq", texts(m, "exiv2.creator"))
	container("dc:rights", "Alt", []string{text(m, "exiv2.copyright")})
	container("dc:subject", "Bag", texts(m, "exiv2.keywords"))

	if when := captureTime(m); when != "" {
		simple("xmp:CreateDate", when)
		simple("exif:DateTimeOriginal", when)
		simple("photoshop:DateCreated", when)
	}
	simple("xmp:CreatorTool", text(m, "exiv2.software"))

	simple("tiff:Make", text(m, "exiv2.camera.make"))
	simple("tiff:Model", text(m, "exiv2.camera.model"))
	if n, ok := num(m, "exiv2.width"); ok && n > 0 {
		simple("tiff:ImageWidth", strconv.Itoa(int(n)))
	}
	if n, ok := num(m, "exiv2.height"); ok && n > 0 {
		simple("tiff:ImageLength", strconv.Itoa(int(n)))
	}
	if n, ok := num(m, "exiv2.orientation"); ok && n >= 1 && n <= 8 {
		simple("tiff:Orientation", strconv.Itoa(int(n)))
	}
	simple("exifEX:LensMake", text(m, "exiv2.lens.make"))
	simple("exifEX:LensModel", text(m, "exiv2.lens.model"))
	if n, ok := num(m, "exiv2.exposure.f_number"); ok && n > 0 {
		simple("exif:FNumber", rational(n))
	}
	if n, ok := num(m, "exiv2.exposure.time"); ok && n > 0 {
		simple("exif:ExposureTime", exposure(n))
	}
	if n, ok := num(m, "exiv2.exposure.focal_length"); ok && n > 0 {
		simple("exif:FocalLength", rational(n))
	}
	if n, ok := num(m, "exiv2.exposure.focal_length_35mm"); ok && n > 0 {
		simple("exif:FocalLengthIn35mmFilm", strconv.Itoa(int(math.Round(n))))
	}
	if n, ok := num(m, "exiv2.exposure.iso"); ok && n > 0 {
		container("exif:ISOSpeedRatings", "Seq", []string{strconv.Itoa(int(math.Round(n)))})
	}
	if lat, ok := num(m, "exiv2.gps.latitude"); ok && lat >= -90 && lat <= 90 {
		if lon, ok := num(m, "exiv2.gps.longitude"); ok && lon >= -180 && lon <= 180 {
			simple("exif:GPSVersionID", "2.3.0.0")
			simple("exif:GPSLatitude", gpsCoordinate(lat, "N", "S"))
			simple("exif:GPSLongitude", gpsCoordinate(lon, "E", "W"))
			if alt, ok := num(m, "exiv2.gps.altitude"); ok {
				ref := "0"
				if alt < 0 {
					ref = "1"
				}
				simple("exif:GPSAltitudeRef", ref)
				simple("exif:GPSAltitude", rational(math.Abs(alt)))
			}
		}
	}
	simple("photoshop:City", text(m, "geocoding.city"))
	simple("photoshop:State", text(m, "geocoding.region"))
	simple("photoshop:Country", text(m, "geocoding.country.name"))
	b.WriteString("  </rdf:Description>\n </rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// esc escapes XML character data; characters XML cannot hold become
// U+FFFD.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// captureTime is exiv2's capture time as XMP dates are written: with its
// zone when the camera said it, else the camera's clock without one.
func captureTime(m map[string]any) string {
	local := text(m, "exiv2.created_local")
	if local == "" {
		return ""
	}
	if zone := text(m, "exiv2.created_zone"); zone != "" {
		return local + zone
	}
	return local
}

// rational is a positive number as an XMP rational ("45/10").
func rational(f float64) string {
	if f == math.Trunc(f) && f < 1e9 {
		return strconv.FormatInt(int64(f), 10) + "/1"
	}
	n, d := int64(math.Round(f*10000)), int64(10000)
	for a, b := n, d; b != 0; {
		a, b = b, a%b
		if b == 0 {
			n, d = n/a, d/a
		}
	}
	return strconv.FormatInt(n, 10) + "/" + strconv.FormatInt(d, 10)
}

// exposure is an exposure time as cameras write it: 1/125 below a second.
func exposure(sec float64) string {
	if sec < 1 {
		if inv := 1 / sec; math.Abs(inv-math.Round(inv)) < 0.01*inv {
			return "1/" + strconv.FormatInt(int64(math.Round(inv)), 10)
		}
	}
	return rational(sec)
}

// gpsCoordinate writes decimal degrees as XMP's "DDD,MM.mmmmmmK".
func gpsCoordinate(deg float64, pos, neg string) string {
	ref := pos
	if deg < 0 {
		ref, deg = neg, -deg
	}
	d := math.Floor(deg)
	minutes := (deg - d) * 60
	return fmt.Sprintf("%d,%.6f%s", int(d), minutes, ref)
}

// text is the string values at a dotted path of an item's metadata,
// joined by commas.
func text(m map[string]any, path string) string { return strings.Join(texts(m, path), ", ") }

// texts are the string values at a dotted path.
func texts(m map[string]any, path string) []string {
	var out []string
	for _, v := range values(m, path) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// num is the first value at a dotted path, when it is a number.
func num(m map[string]any, path string) (float64, bool) {
	vs := values(m, path)
	if len(vs) == 0 {
		return 0, false
	}
	switch x := vs[0].(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
