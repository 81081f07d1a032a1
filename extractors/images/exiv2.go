package images

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// exiv2 reads EXIF, XMP and IPTC metadata (camera, lens, capture time
// with its zone, GPS position, orientation, dimensions, keywords, people
// and rights, exposure) with exiftool, kept running (stayOpen): the API
// name is the reference's, the tool is exiftool, which reads more formats
// (RAW, HEIC, videos of phones) than the exiv2 library.
func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "exiv2",
		DisplayName:    "Image Metadata (EXIF, IPTC, XMP)",
		Family:         extractors.FamilyImages,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"exiftool"},
		// Phone videos carry the same camera, time and GPS tags.
		Accept: extractors.AcceptMIME([]string{"image/", "video/mp4", "video/quicktime", "video/3gpp", "video/x-m4v"}),
		Fields: exiv2Fields,
		Settings: []extractors.Setting{{Name: "processes", Env: "EXIFTOOL_PROCESSES", Kind: extractors.KindInt, Default: "2", Min: 1, Max: 64,
			Doc: "exiftool processes kept running per worker process (each serves one file at a time)"}},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			n, err := env.Int("processes")
			if err != nil {
				return nil, err
			}
			return &exiv2{tool: newStayOpen(env.Runner, env.Logger, n, exiftoolArgs())}, nil
		},
	})
}

var exiv2Fields = []extractors.Field{
	{Path: "camera.make", Type: extractors.TypeString, Doc: "camera maker (EXIF Make)"},
	{Path: "camera.model", Type: extractors.TypeString, Doc: "camera model (EXIF Model)"},
	{Path: "lens.make", Type: extractors.TypeString, Doc: "lens maker"},
	{Path: "lens.model", Type: extractors.TypeString, Doc: "lens model"},
	{Path: "created", Type: extractors.TypeDate, Doc: "capture time, RFC 3339; with the zone of created_zone, or UTC (Z) when the zone is unknown"},
	{Path: "created_local", Type: extractors.TypeString, Doc: "capture time as the camera clock showed it, without zone (YYYY-MM-DDTHH:MM:SS)", Label: "Taken (camera clock)"},
	{Path: "created_zone", Type: extractors.TypeString, Doc: "UTC offset of the capture time (+02:00); absent when unknown", Label: "Time zone"},
	{Path: "created_zone_source", Type: extractors.TypeString, Doc: "where the offset comes from: offset_time (EXIF OffsetTime*), date (the date tag carried it), gps (camera clock against GPS time), quicktime (UTC by the QuickTime format)"},
	{Path: "gps.latitude", Type: extractors.TypeNumber, Doc: "decimal degrees, north positive", Label: "Latitude"},
	{Path: "gps.longitude", Type: extractors.TypeNumber, Doc: "decimal degrees, east positive", Label: "Longitude"},
	{Path: "gps.altitude", Type: extractors.TypeNumber, Doc: "metres above sea level (negative below)", Label: "Altitude (m)"},
	{Path: "gps.direction", Type: extractors.TypeNumber, Doc: "direction the camera pointed, degrees"},
	{Path: "orientation", Type: extractors.TypeNumber, Doc: "EXIF orientation 1-8 (1 upright, 6 rotate 90 clockwise to view, 3 rotate 180, 8 rotate 270)"},
	{Path: "width", Type: extractors.TypeNumber, Doc: "stored width in pixels (before orientation)"},
	{Path: "height", Type: extractors.TypeNumber, Doc: "stored height in pixels (before orientation)"},
	{Path: "keywords", Type: extractors.TypeString, Doc: "keywords (IPTC Keywords and XMP dc:subject)"},
	{Path: "creator", Type: extractors.TypeString, Doc: "creator or artist (XMP dc:creator, EXIF Artist, IPTC By-line)"},
	{Path: "copyright", Type: extractors.TypeString, Doc: "copyright notice (EXIF Copyright, XMP dc:rights, IPTC CopyrightNotice)"},
	{Path: "title", Type: extractors.TypeString, Doc: "title (XMP dc:title, IPTC ObjectName)"},
	{Path: "description", Type: extractors.TypeText, Doc: "description or caption (XMP dc:description, EXIF ImageDescription, IPTC Caption-Abstract)"},
	{Path: "software", Type: extractors.TypeString, Doc: "software that wrote the file"},
	{Path: "exposure.iso", Type: extractors.TypeNumber, Doc: "ISO speed", Label: "ISO"},
	{Path: "exposure.f_number", Type: extractors.TypeNumber, Doc: "aperture f-number", Label: "Aperture (f-number)"},
	{Path: "exposure.time", Type: extractors.TypeNumber, Doc: "exposure time, seconds", Label: "Exposure time (s)"},
	{Path: "exposure.focal_length", Type: extractors.TypeNumber, Doc: "focal length, mm", Label: "Focal length (mm)"},
	{Path: "exposure.focal_length_35mm", Type: extractors.TypeNumber, Doc: "35 mm equivalent focal length, mm", Label: "Focal length, 35 mm equivalent"},
	{Path: "flash.fired", Type: extractors.TypeBool, Doc: "whether the flash fired"},
	{Path: "flash.value", Type: extractors.TypeNumber, Doc: "EXIF Flash value (bit 0 fired, bits 3-4 mode, bit 5 no flash function)"},
	{Path: "format", Type: extractors.TypeString, Doc: "file type as exiftool names it (JPEG, PNG, CR2, MP4)"},
	{Path: "warning", Type: extractors.TypeString, Doc: "exiftool's warning about the file (a damaged segment), if any"},
}

// exiftoolTags are the tags asked for: a short answer to parse whatever the
// file holds, and the bound on answers (defaultAnswerLimit) stays far from
// what a real file needs.
var exiftoolTags = []string{
	"Make", "Model", "LensMake", "LensModel", "Lens", "LensID",
	"DateTimeOriginal", "SubSecTimeOriginal", "OffsetTimeOriginal", "CreateDate", "SubSecTimeDigitized",
	"OffsetTimeDigitized", "DateCreated", "GPSDateTime", "GPSTimeStamp",
	"GPSLatitude", "GPSLongitude", "GPSAltitude", "GPSAltitudeRef", "GPSImgDirection",
	"Orientation", "ImageWidth", "ImageHeight",
	"Keywords", "Subject", "Creator", "Artist", "By-line", "Copyright", "Rights", "CopyrightNotice",
	"Title", "ObjectName", "Description", "ImageDescription", "Caption-Abstract", "Software", "CreatorTool",
	"ISO", "FNumber", "ExposureTime", "FocalLength", "FocalLengthIn35mmFormat", "Flash",
	"FileType", "Error", "Warning",
}

// exiftoolArgs are the arguments common to every request: JSON, numbers
// as numbers (-n: decimal degrees, seconds), no user configuration file
// (-config "" on the command line), no scan of JPEG trailers (-fast).
func exiftoolArgs() []string {
	args := []string{"-json", "-n", "-fast", "-api", "LargeFileSupport=1"}
	for _, t := range exiftoolTags {
		args = append(args, "-"+t)
	}
	return args
}

// ExiftoolCommand is the bare command that reads what exiv2 reads of one
// file, for benchmarks against the tool.
func ExiftoolCommand(path string) []string {
	return append(append([]string{"exiftool", "-config", ""}, exiftoolArgs()...), path)
}

type exiv2 struct{ tool *stayOpen }

var (
	_ extractors.Extractor = (*exiv2)(nil)
	_ io.Closer            = (*exiv2)(nil) // Registry.Close stops exiftool
)

func (x *exiv2) Close() error { return x.tool.Close() }

func (x *exiv2) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	path, err := filepath.Abs(in.Path)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("exiftool: %w", err))
	}
	if _, err := os.Stat(path); err != nil {
		return nil, extractors.Transient(fmt.Errorf("exiftool: %w", err))
	}
	out, err := x.tool.Query(ctx, path)
	if err != nil {
		return nil, err
	}
	data, err := ParseExiftool(out)
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: data}, nil
}

// Bounds on what one file may put in Data.
const (
	maxKeywords    = 200
	maxStringBytes = 1024
	maxTextBytes   = 16 << 10
)

// ParseExiftool turns the JSON answer of exiftool -json -n about one file
// into exiv2's Data. A file exiftool could not read (its "Error" tag) is
// an error; a file type it does not know wraps extractors.ErrUnsupported.
func ParseExiftool(out []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var files []map[string]any
	if err := dec.Decode(&files); err != nil {
		return nil, fmt.Errorf("read exiftool output: %w", err)
	}
	if len(files) != 1 || files[0] == nil {
		return nil, fmt.Errorf("read exiftool output: %d files, want 1", len(files))
	}
	t := tags(files[0])
	if e := t.str("Error"); e != "" {
		if strings.Contains(e, "Unknown file type") {
			return nil, fmt.Errorf("exiftool: %s: %w", e, extractors.ErrUnsupported)
		}
		return nil, fmt.Errorf("exiftool: %s", e)
	}
	data := map[string]any{}
	put := func(obj map[string]any, key string, v any) {
		switch x := v.(type) {
		case string:
			if x == "" {
				return
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return
			}
		case nil:
			return
		}
		obj[key] = v
	}
	group := func(name string, fill func(map[string]any)) {
		obj := map[string]any{}
		fill(obj)
		if len(obj) > 0 {
			data[name] = obj
		}
	}
	group("camera", func(o map[string]any) {
		put(o, "make", t.str("Make"))
		put(o, "model", t.str("Model"))
	})
	group("lens", func(o map[string]any) {
		put(o, "make", t.str("LensMake"))
		put(o, "model", t.first("LensModel", "Lens", "LensID"))
	})
	for k, v := range captureTime(t) {
		data[k] = v
	}
	group("gps", func(o map[string]any) {
		lat, okLat := t.num("GPSLatitude")
		lon, okLon := t.num("GPSLongitude")
		if okLat && okLon && math.Abs(lat) <= 90 && math.Abs(lon) <= 180 {
			o["latitude"] = round(lat, 7)
			o["longitude"] = round(lon, 7)
		}
		if alt, ok := t.num("GPSAltitude"); ok && math.Abs(alt) < 1e6 {
			if ref, _ := t.num("GPSAltitudeRef"); ref == 1 && alt > 0 {
				alt = -alt // below sea level
			}
			o["altitude"] = round(alt, 2)
		}
		if dir, ok := t.num("GPSImgDirection"); ok && dir >= 0 && dir <= 360 {
			o["direction"] = round(dir, 2)
		}
	})
	if o, ok := t.num("Orientation"); ok && o >= 1 && o <= 8 && o == math.Trunc(o) {
		data["orientation"] = o
	}
	if w, ok := t.num("ImageWidth"); ok && w > 0 && w < 1e7 {
		data["width"] = math.Trunc(w)
	}
	if h, ok := t.num("ImageHeight"); ok && h > 0 && h < 1e7 {
		data["height"] = math.Trunc(h)
	}
	if kw := t.list(maxKeywords, "Keywords", "Subject"); len(kw) > 0 {
		data["keywords"] = kw
	}
	put(data, "creator", strings.Join(t.list(20, "Creator", "Artist", "By-line"), "; "))
	put(data, "copyright", t.first("Copyright", "Rights", "CopyrightNotice"))
	put(data, "title", t.first("Title", "ObjectName"))
	if d := t.firstText("Description", "ImageDescription", "Caption-Abstract"); d != "" {
		data["description"] = d
	}
	put(data, "software", t.first("Software", "CreatorTool"))
	group("exposure", func(o map[string]any) {
		if v, ok := t.num("ISO"); ok && v > 0 && v < 1e7 {
			o["iso"] = v
		}
		if v, ok := t.num("FNumber"); ok && v > 0 && v < 1000 {
			o["f_number"] = round(v, 2)
		}
		if v, ok := t.num("ExposureTime"); ok && v > 0 && v < 1e6 {
			o["time"] = round(v, 9)
		}
		if v, ok := t.num("FocalLength"); ok && v > 0 && v < 1e5 {
			o["focal_length"] = round(v, 2)
		}
		if v, ok := t.num("FocalLengthIn35mmFormat"); ok && v > 0 && v < 1e5 {
			o["focal_length_35mm"] = round(v, 2)
		}
	})
	if v, ok := t.num("Flash"); ok && v >= 0 && v < 1<<16 && v == math.Trunc(v) {
		data["flash"] = map[string]any{"fired": int(v)&1 == 1, "value": v}
	}
	put(data, "format", t.str("FileType"))
	put(data, "warning", t.str("Warning"))
	return data, nil
}

// tags is one file of exiftool's JSON. exiftool writes a value as a JSON
// number when it looks like one (a Model "5300" or a Software "12" too), a
// list when a tag repeats: the accessors take any of these.
type tags map[string]any

func (t tags) str(key string) string { return doctext.Cut(scalar(t[key]), maxStringBytes) }

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(strings.ToValidUTF8(x, "\uFFFD"))
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// first is the first non-empty string of keys; a list gives its first element.
func (t tags) first(keys ...string) string {
	for _, k := range keys {
		if l := t.list(1, k); len(l) > 0 {
			return l[0]
		}
	}
	return ""
}

func (t tags) firstText(keys ...string) string {
	for _, k := range keys {
		if s := doctext.Cut(scalar(t[k]), maxTextBytes); s != "" {
			return s
		}
	}
	return ""
}

// list gathers the values of keys, scalars or lists, without duplicates
// or empty ones, at most max of them.
func (t tags) list(max int, keys ...string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v any) {
		s := doctext.Cut(scalar(v), maxStringBytes)
		if s != "" && !seen[s] && len(out) < max {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, k := range keys {
		switch x := t[k].(type) {
		case []any:
			for _, v := range x {
				add(v)
			}
		default:
			add(x)
		}
	}
	return out
}

func (t tags) num(key string) (float64, bool) {
	var s string
	switch x := t[key].(type) {
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// captureTime is the capture time of the file: created (RFC 3339),
// created_local (the camera clock), and, when it can be known,
// created_zone and where it came from. The first date tag that parses
// wins: DateTimeOriginal, CreateDate (digitized, or the QuickTime creation
// time, in UTC by that format), XMP DateCreated.
func captureTime(t tags) map[string]any {
	type candidate struct{ date, subSec, offset string }
	candidates := []candidate{
		{"DateTimeOriginal", "SubSecTimeOriginal", "OffsetTimeOriginal"},
		{"CreateDate", "SubSecTimeDigitized", "OffsetTimeDigitized"},
		{"DateCreated", "", ""},
	}
	for _, c := range candidates {
		local, zone, ok := exifTime(t.str(c.date), t.str(c.subSec))
		if !ok {
			continue
		}
		zoneFrom := "date"
		if zone == nil && c.date == "CreateDate" && isQuickTime(t.str("FileType")) {
			zone, zoneFrom = time.UTC, "quicktime"
		}
		if zone == nil && c.offset != "" {
			zone, zoneFrom = offsetZone(t.str(c.offset)), "offset_time"
		}
		if zone == nil {
			zone, zoneFrom = gpsZone(local, t.str("GPSDateTime"), t.str("GPSTimeStamp")), "gps"
		}
		out := map[string]any{"created_local": local.Format("2006-01-02T15:04:05")}
		if zone == nil {
			out["created"] = local.Format(time.RFC3339Nano) // the wall clock, as UTC
			return out
		}
		at := time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), local.Second(), local.Nanosecond(), zone)
		out["created"] = at.Format(time.RFC3339Nano)
		out["created_zone"] = at.Format("-07:00")
		out["created_zone_source"] = zoneFrom
		return out
	}
	return nil
}

// isQuickTime says whether exiftool's file type is a QuickTime movie,
// whose creation time is UTC by the format.
func isQuickTime(fileType string) bool {
	switch fileType {
	case "MOV", "MP4", "M4V", "3GP", "3G2":
		return true
	}
	return false
}

// exifTime parses an EXIF/XMP date ("2014:09:01 15:03:47", optionally with
// fractional seconds and a zone "+02:00" or "Z", or a date alone) as
// wall-clock time in UTC, with the zone it carried (nil when none), adding
// subSec (EXIF SubSecTime*: the digits after the decimal point).
func exifTime(s, subSec string) (time.Time, *time.Location, bool) {
	s = strings.TrimSpace(s)
	var zone *time.Location
	switch {
	case strings.HasSuffix(s, "Z"):
		zone, s = time.UTC, strings.TrimSuffix(s, "Z")
	case len(s) > 19 && (s[len(s)-6] == '+' || s[len(s)-6] == '-') && s[len(s)-3] == ':':
		zone, s = offsetZone(s[len(s)-6:]), s[:len(s)-6]
	}
	var t time.Time
	var err error
	switch {
	case len(s) >= 19:
		t, err = time.Parse("2006:01:02 15:04:05", s[:19])
		if err == nil && len(s) > 20 && s[19] == '.' && subSec == "" {
			subSec = s[20:]
		}
	case len(s) == 10:
		t, err = time.Parse("2006:01:02", s)
	default:
		return time.Time{}, nil, false
	}
	if err != nil || t.Year() < 1800 {
		return time.Time{}, nil, false
	}
	if d, ok := fraction(subSec); ok {
		t = t.Add(d)
	}
	return t, zone, true
}

// fraction reads the digits of a fractional second ("88" is 0.88 s).
func fraction(digits string) (time.Duration, bool) {
	digits = strings.TrimSpace(digits)
	if digits == "" || len(digits) > 9 {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	for i := len(digits); i < 9; i++ {
		n *= 10
	}
	return time.Duration(n), true
}

// offsetZone reads "+02:00" / "-05:30"; nil when malformed or beyond
// ±14 hours.
func offsetZone(s string) *time.Location {
	s = strings.TrimSpace(s)
	if s == "Z" {
		return time.UTC
	}
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return nil
	}
	h, err1 := strconv.Atoi(s[1:3])
	m, err2 := strconv.Atoi(s[4:6])
	if err1 != nil || err2 != nil || h > 14 || m > 59 {
		return nil
	}
	sec := h*3600 + m*60
	if s[0] == '-' {
		sec = -sec
	}
	return time.FixedZone("", sec)
}

// gpsZone infers the offset of the camera clock from the GPS time (UTC)
// recorded with the picture: the difference, rounded to a quarter hour,
// when it is a real offset (-12 h to +14 h). With a GPS time of day alone
// (no GPS date), the difference is taken modulo a day.
func gpsZone(local time.Time, gpsDateTime, gpsTime string) *time.Location {
	var diff time.Duration
	if utc, _, ok := exifTime(gpsDateTime, ""); ok && len(strings.TrimSpace(gpsDateTime)) >= 19 {
		diff = local.Sub(utc)
	} else {
		tod, ok := timeOfDay(gpsTime)
		if !ok {
			return nil
		}
		l := time.Duration(local.Hour())*time.Hour + time.Duration(local.Minute())*time.Minute +
			time.Duration(local.Second())*time.Second + time.Duration(local.Nanosecond())
		diff = l - tod
		for diff <= -12*time.Hour {
			diff += 24 * time.Hour
		}
		for diff > 14*time.Hour {
			diff -= 24 * time.Hour
		}
	}
	q := diff.Round(15 * time.Minute)
	if q < -12*time.Hour || q > 14*time.Hour {
		return nil
	}
	// A clock that far from a quarter hour is not on a zone offset: a
	// camera set by hand, drifting.
	if d := diff - q; d > 5*time.Minute || d < -5*time.Minute {
		return nil
	}
	return time.FixedZone("", int(q/time.Second))
}

// timeOfDay reads a GPS time stamp "13:03:42.79".
func timeOfDay(s string) (time.Duration, bool) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return 0, false
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	sec, err3 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil || err3 != nil || h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec >= 61 {
		return 0, false
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec*float64(time.Second)), true
}
