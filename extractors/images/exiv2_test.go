package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// Expected values of the real samples, read with the bare tool by hand:
// exiftool -n -Make -Model -GPSLatitude -GPSLongitude ... FILE (12.57).
func TestExiv2RealFiles(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	cases := []struct {
		file string
		want map[string]any // dotted path -> value
	}{
		{"goexif-has-lens-info.jpg", map[string]any{
			"camera.make": "Apple", "camera.model": "iPhone 4S",
			"lens.make": "Apple", "lens.model": "iPhone 4S back camera 4.28mm f/2.4",
			"gps.latitude": 59.3325, "gps.longitude": 18.0649, "gps.altitude": 29.0, "gps.direction": 104.74,
			"orientation": 6.0, "width": 205.0, "height": 102.0, "software": "7.1.1",
			"exposure.iso": 50.0, "exposure.f_number": 2.4, "exposure.time": 0.000778816, "exposure.focal_length": 4.28,
			"exposure.focal_length_35mm": 35.0, "flash.fired": false, "flash.value": 16.0, "format": "JPEG",
			// DateTimeOriginal 15:03:47 + SubSecTimeOriginal 880; GPSTimeStamp
			// 13:03:42.79 UTC: the camera clock ran at +02:00 (Stockholm, CEST).
			"created": "2014-09-01T15:03:47.88+02:00", "created_local": "2014-09-01T15:03:47",
			"created_zone": "+02:00", "created_zone_source": "gps",
		}},
		{"goexif-geodegrees_as_string.jpg", map[string]any{
			"camera.model": "HTC One_M8", "gps.latitude": 52.0139, "gps.longitude": 11.0028, "gps.altitude": 0.0,
			"width": 205.0, "height": 102.0, "exposure.iso": 125.0, "exposure.focal_length": 3.0,
			// No offset, no GPS time: the camera clock, marked as UTC.
			"created": "2014-04-26T19:09:19Z", "created_local": "2014-04-26T19:09:19",
		}},
		{"goexif-sample1.jpg", map[string]any{
			"camera.make": "NIKON CORPORATION", "camera.model": "NIKON D2H",
			"gps.latitude": 39.9156, "gps.longitude": 116.3908, "orientation": 1.0, "width": 500.0, "height": 375.0,
			"software": "Opanda PowerExif", "exposure.f_number": 4.5, "exposure.time": 0.008, "exposure.focal_length": 23.33,
			"exposure.focal_length_35mm": 35.0, "flash.fired": false, "flash.value": 0.0,
			// GPSDateTime 2003:11:23 18:07:37Z equals the camera clock.
			"created": "2003-11-23T18:07:37.63Z", "created_zone": "+00:00", "created_zone_source": "gps",
		}},
		{"sample.mov", map[string]any{"format": "MOV", "width": 560.0, "height": 320.0}},
	}
	for _, c := range cases {
		o, _ := run(t, reg, "exiv2", filepath.Join("testdata", c.file), "image/jpeg")
		if o.Err != nil {
			t.Errorf("%s: %v", c.file, o.Err)
			continue
		}
		for path, want := range c.want {
			got := lookup(o.Data, path)
			if w, ok := want.(float64); ok && strings.HasPrefix(path, "gps.l") {
				// GPS to 4 decimals, as the issue asks.
				if g, ok := got.(float64); !ok || math.Abs(g-w) > 0.00005 {
					t.Errorf("%s: %s = %v, want %v to 4 decimals", c.file, path, got, w)
				}
				continue
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %s = %v (%T), want %v", c.file, path, got, got, want)
			}
		}
	}
}

// lookup reads a dotted path of data.
func lookup(data map[string]any, path string) any {
	var v any = data
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// XMP and IPTC: tags written with exiftool into a copy of a real JPEG are
// read back.
func TestExiv2XMPAndIPTC(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "tagged.jpg")
	extractortest.CopyFile(t, "testdata/orientation_1.jpg", p)
	out, err := exec.Command("exiftool", "-q", "-overwrite_original", "-XMP-dc:Subject=alpha", "-XMP-dc:Subject=beta",
		"-IPTC:Keywords=gamma", "-IPTC:Keywords=alpha", "-XMP-dc:Creator=Jane Doe", "-XMP-dc:Creator=John Roe",
		"-EXIF:Copyright=(c) 2020 Jane Doe", "-XMP-dc:Title=Harbour at dawn", "-XMP-dc:Description=Boats in the harbour",
		"-EXIF:DateTimeOriginal=2020:05:06 07:08:09", "-EXIF:SubSecTimeOriginal=5", "-EXIF:OffsetTimeOriginal=-05:00",
		"-GPSLatitude=33.8688", "-GPSLatitudeRef=S", "-GPSLongitude=151.2093", "-GPSLongitudeRef=E",
		"-GPSAltitude#=12.5", "-GPSAltitudeRef#=1", "-Flash#=25", p).CombinedOutput()
	if err != nil {
		t.Fatalf("exiftool write: %v %s", err, out)
	}
	o, _ := run(t, registry(t, nil), "exiv2", p, "image/jpeg")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	for path, want := range map[string]string{
		"keywords": "[gamma alpha beta]", "creator": "Jane Doe; John Roe", "copyright": "(c) 2020 Jane Doe",
		"title": "Harbour at dawn", "description": "Boats in the harbour",
		"created": "2020-05-06T07:08:09.5-05:00", "created_zone": "-05:00", "created_zone_source": "offset_time",
		"gps.latitude": "-33.8688", "gps.longitude": "151.2093", "gps.altitude": "-12.5",
		"flash.fired": "true", "flash.value": "25",
	} {
		if got := fmt.Sprint(lookup(o.Data, path)); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
}

// Golden: recorded answers of the bare tool (ExiftoolCommand on the sample
// files, and on an empty, a garbage and an unknown file) through the
// parser.
func TestParseExiftoolGolden(t *testing.T) {
	t.Parallel()
	extractortest.Golden(t, "testdata/exiftool", ".json", func(t *testing.T, name string, in []byte) (any, error) {
		return ParseExiftool(in)
	})
}

func TestParseExiftoolRefusals(t *testing.T) {
	t.Parallel()
	if _, err := ParseExiftool([]byte(`[{"Error":"Unknown file type"}]`)); !errors.Is(err, extractors.ErrUnsupported) {
		t.Errorf("unknown type: %v", err)
	}
	for _, in := range []string{``, `[]`, `[{},{}]`, `{"Make":"x"}`, `[null]`, `[{"Make":`} {
		if _, err := ParseExiftool([]byte(in)); err == nil {
			t.Errorf("%q parsed", in)
		}
	}
	// Values exiftool writes as numbers, odd types, out-of-range values.
	d, err := ParseExiftool([]byte(`[{"Model":5300,"Make":true,"GPSLatitude":"91","GPSLongitude":10,"Orientation":9,
		"ImageWidth":-1,"Keywords":[1,"a","a",""],"Creator":{"x":1},"DateTimeOriginal":"0000:00:00 00:00:00","Flash":"x"}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := `map[camera:map[make:true model:5300] keywords:[1 a]]`
	if got := fmt.Sprint(d); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestCaptureTimeZones(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tags tags
		want string
	}{
		{tags{"DateTimeOriginal": "2020:01:02 03:04:05+05:30"}, "2020-01-02T03:04:05+05:30 date"},
		{tags{"DateTimeOriginal": "2020:01:02 03:04:05.25Z"}, "2020-01-02T03:04:05.25Z date"},
		{tags{"DateTimeOriginal": "garbage", "CreateDate": "2020:01:02 03:04:05", "OffsetTimeDigitized": "+01:00"}, "2020-01-02T03:04:05+01:00 offset_time"},
		{tags{"CreateDate": "2020:01:02 03:04:05", "FileType": "MP4"}, "2020-01-02T03:04:05Z quicktime"},
		{tags{"DateCreated": "2020:01:02"}, "2020-01-02T00:00:00Z "},
		// GPS time of day only, across midnight: 00:30 local, 22:30 UTC.
		{tags{"DateTimeOriginal": "2020:01:02 00:30:00", "GPSTimeStamp": "22:30:00"}, "2020-01-02T00:30:00+02:00 gps"},
		// A clock 20 minutes off any zone: no zone.
		{tags{"DateTimeOriginal": "2020:01:02 10:22:00", "GPSDateTime": "2020:01:02 10:00:00Z"}, "2020-01-02T10:22:00Z "},
		{tags{"DateTimeOriginal": "2020:01:02 10:03:00", "GPSDateTime": "2020:01:02 10:00:00Z"}, "2020-01-02T10:03:00Z gps"},
		{tags{"DateTimeOriginal": "2020:01:02 10:00:00", "OffsetTimeOriginal": "+15:00"}, "2020-01-02T10:00:00Z "},
	} {
		got := captureTime(c.tags)
		if s := fmt.Sprint(got["created"], " ", got["created_zone_source"]); strings.TrimSuffix(s, "<nil>") != c.want {
			t.Errorf("%v: %s, want %s", c.tags, s, c.want)
		}
	}
}

// Hostile and odd files are recorded errors (not transient), and the
// exiftool process carries on.
func TestExiv2BadFiles(t *testing.T) {
	t.Parallel()
	reg := registry(t, nil)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jpg")
	os.WriteFile(empty, nil, 0o644)
	sample, _ := os.ReadFile("testdata/goexif-sample1.jpg")
	truncated := filepath.Join(dir, "truncated.jpg")
	os.WriteFile(truncated, sample[:len(sample)/2], 0o644)
	unknown := filepath.Join(dir, "unknown.bin")
	os.WriteFile(unknown, []byte("\x00\x01\x02\x03 no known magic \xfe\xff"), 0o644)
	for _, c := range []struct{ path, err string }{
		{empty, "File is empty"},
		{unknown, "Unknown file type"},
	} {
		o, _ := run(t, reg, "exiv2", c.path, "image/jpeg")
		if o.Err == nil || !strings.Contains(o.Err.Error(), c.err) || extractors.IsTransient(o.Err) {
			t.Errorf("%s: err = %v, want a deterministic %q", c.path, o.Err, c.err)
		}
	}
	// A truncated JPEG still has its EXIF segment: read, with a warning.
	o, _ := run(t, reg, "exiv2", truncated, "image/jpeg")
	if o.Err != nil || lookup(o.Data, "camera.model") != "NIKON D2H" {
		t.Errorf("truncated: %v %v", o.Data, o.Err)
	}
	o, _ = run(t, reg, "exiv2", "testdata/goexif-sample1.jpg", "image/jpeg")
	if o.Err != nil {
		t.Errorf("after bad files: %v", o.Err)
	}
}

// A file name with a line break (and backslashes, tabs) cannot smuggle
// arguments into exiftool: it is passed as a C string and read as given.
func TestExiv2OddFileName(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a\\b\nc\td\r-execute\n-ver.jpg")
	extractortest.CopyFile(t, "testdata/goexif-sample1.jpg", p)
	o, _ := run(t, registry(t, nil), "exiv2", p, "image/jpeg")
	if o.Err != nil || lookup(o.Data, "camera.model") != "NIKON D2H" {
		t.Errorf("odd name: %v %v", o.Data, o.Err)
	}
	if _, err := argLine("relative.jpg"); err == nil {
		t.Error("relative name accepted")
	}
	if _, err := argLine("/a\x00b"); err == nil {
		t.Error("NUL accepted")
	}
}

// An answer over the bound (thousands of keywords in an XMP packet) kills
// that exiftool; the next file is served by a new one.
func TestStayOpenHugeXMP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag>`)
	// exiftool itself keeps 1000 items of a list: long ones, then.
	for i := range 5000 {
		fmt.Fprintf(&b, "<rdf:li>keyword number %d %s</rdf:li>", i, strings.Repeat("x", 200))
	}
	b.WriteString(`</rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`)
	huge := filepath.Join(dir, "huge.xmp")
	os.WriteFile(huge, []byte(b.String()), 0o644)

	s := newStayOpen(extractors.NewRunner(1), nil, 1, exiftoolArgs())
	defer s.Close()
	s.answerLimit = 64 << 10
	ctx := context.Background()
	if _, err := s.Query(ctx, absPath(t, "testdata/goexif-sample1.jpg")); err != nil {
		t.Fatal(err)
	}
	_, err := s.Query(ctx, huge)
	if !errors.Is(err, extractors.ErrOutputLimit) {
		t.Fatalf("huge XMP: err = %v, want the output limit", err)
	}
	out, err := s.Query(ctx, absPath(t, "testdata/goexif-has-lens-info.jpg"))
	if err != nil || !strings.Contains(string(out), "iPhone 4S") {
		t.Fatalf("after the huge XMP: %s %v", out, err)
	}
	if n := s.helpers.Started(); n != 2 {
		t.Errorf("%d exiftool processes started, want 2 (one replaced)", n)
	}
	// With the real bound the same file is read (its keywords cut to
	// maxKeywords).
	s.answerLimit = defaultAnswerLimit
	out, err = s.Query(ctx, huge)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseExiftool(out)
	if err != nil || len(d["keywords"].([]string)) != maxKeywords {
		t.Errorf("keywords: %v", err)
	}
}

// An XMP packet whose parsing needs more memory than exiftool may have
// kills that exiftool (perl: "Out of memory"); the next file is served by
// a new one.
func TestStayOpenMemoryBound(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:description><rdf:Alt><rdf:li xml:lang="x-default">`)
	b.WriteString(strings.Repeat("a very long description ", 2<<20)) // 48 MiB in one value
	b.WriteString(`</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`)
	huge := filepath.Join(t.TempDir(), "huge.xmp")
	os.WriteFile(huge, []byte(b.String()), 0o644)

	s := newStayOpen(extractors.NewRunner(1), nil, 1, exiftoolArgs())
	defer s.Close()
	s.memory = 128 << 20
	_, err := s.Query(context.Background(), huge)
	if err == nil {
		t.Fatal("a 48 MiB value read within 128 MiB")
	}
	t.Logf("huge XMP: %v", err)
	out, err := s.Query(context.Background(), absPath(t, "testdata/goexif-sample1.jpg"))
	if err != nil || !strings.Contains(string(out), "NIKON D2H") {
		t.Fatalf("after the huge XMP: %s %v", out, err)
	}
	if n := s.helpers.Started(); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
}

// A request past its deadline kills its exiftool (the answer will never be
// taken for another's) and the next request starts a new one.
func TestStayOpenDeadline(t *testing.T) {
	t.Parallel()
	s := newStayOpen(extractors.NewRunner(1), nil, 1, exiftoolArgs())
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if _, err := s.Query(ctx, absPath(t, "testdata/goexif-sample1.jpg")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline", err)
	}
	// A deadline hit while exiftool works: its own request timeout.
	s.timeout = time.Millisecond
	_, err := s.Query(context.Background(), absPath(t, "testdata/goexif-sample1.jpg"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline", err)
	}
	s.timeout = defaultRequestTimeout
	out, err := s.Query(context.Background(), absPath(t, "testdata/goexif-sample1.jpg"))
	if err != nil || !strings.Contains(string(out), "NIKON D2H") {
		t.Fatalf("after a deadline: %s %v", out, err)
	}
}

func TestStayOpenRestartsAfterN(t *testing.T) {
	t.Parallel()
	s := newStayOpen(extractors.NewRunner(1), nil, 1, exiftoolArgs())
	defer s.Close()
	s.helpers.RestartAfter = 3
	for range 7 {
		if _, err := s.Query(context.Background(), absPath(t, "testdata/orientation_3.jpg")); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.helpers.Started(); n != 3 {
		t.Errorf("%d processes for 7 files restarted after 3, want 3", n)
	}
}

// Many harvests at once on a pool of two: each gets its own file's answer.
func TestStayOpenConcurrent(t *testing.T) {
	t.Parallel()
	reg := registry(t, map[string]string{"EXIFTOOL_PROCESSES": "2"})
	files := map[string]string{"goexif-sample1.jpg": "NIKON D2H", "goexif-has-lens-info.jpg": "iPhone 4S", "goexif-geodegrees_as_string.jpg": "HTC One_M8"}
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			names := []string{"goexif-sample1.jpg", "goexif-has-lens-info.jpg", "goexif-geodegrees_as_string.jpg"}
			name := names[i%3]
			o, _ := run(t, reg, "exiv2", filepath.Join("testdata", name), "image/jpeg")
			if o.Err != nil || lookup(o.Data, "camera.model") != files[name] {
				t.Errorf("%s: %v %v", name, lookup(o.Data, "camera.model"), o.Err)
			}
		}()
	}
	wg.Wait()
}

// Close stops the exiftool processes; queries after it fail.
func TestStayOpenClose(t *testing.T) {
	t.Parallel()
	s := newStayOpen(extractors.NewRunner(1), nil, 2, exiftoolArgs())
	if _, err := s.Query(context.Background(), absPath(t, "testdata/goexif-sample1.jpg")); err != nil {
		t.Fatal(err)
	}
	pids := s.helpers.Pids()
	s.Close()
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("exiftool %d alive after Close", pid)
		}
	}
	if _, err := s.Query(context.Background(), absPath(t, "testdata/goexif-sample1.jpg")); !errors.Is(err, extractors.ErrHelpersClosed) {
		t.Errorf("query after Close: %v", err)
	}
}

func TestReadAnswer(t *testing.T) {
	t.Parallel()
	mark := readyMark(7)
	for _, c := range []struct {
		in, want, err string
	}{
		{"[{}]\n{ready7}\n", "[{}]\n", ""},
		{"{ready7}\n", "", ""},
		{"x{ready7}\n{ready7}\n", "x{ready7}\n", ""}, // a mark must start a line
		{"{ready6}\n", "", "ended before"},           // another request's mark
		{"[{}]\n{ready7}\nmore", "", "after the ready mark"},
		{strings.Repeat("a", 100) + "\n{ready7}\n", "", "output limit"},
	} {
		got, err := readAnswer(strings.NewReader(c.in), mark, 64)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: err = %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || string(got) != c.want):
			t.Errorf("%q: %q, %v", c.in, got, err)
		}
	}
}

func FuzzParseExiftool(f *testing.F) {
	for _, name := range []string{"goexif-has-lens-info", "tagged", "empty", "sample"} {
		b, _ := os.ReadFile("testdata/exiftool/" + name + ".json")
		f.Add(b)
	}
	f.Add([]byte(`[{"DateTimeOriginal":"2014:09:01 15:03:47+02:00","GPSTimeStamp":"25:99:1","Keywords":[[1]]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseExiftool(b)
		if err != nil {
			return
		}
		if c, ok := d["created"].(string); ok {
			if _, err := time.Parse(time.RFC3339Nano, c); err != nil {
				t.Errorf("created %q: %v", c, err)
			}
		}
		if lat, ok := lookup(d, "gps.latitude").(float64); ok && math.Abs(lat) > 90 {
			t.Errorf("latitude %v", lat)
		}
	})
}

func FuzzReadAnswer(f *testing.F) {
	f.Add([]byte("[{}]\n{ready42}\n"), 1)
	f.Add([]byte("{ready42}\n"), 3)
	f.Add([]byte("x{ready42}{ready42}\n\n{ready42}\n"), 5)
	f.Fuzz(func(t *testing.T, b []byte, chunk int) {
		mark := readyMark(42)
		r := &chunkReader{b: b, n: 1 + int(uint(chunk)%64)}
		out, err := readAnswer(r, mark, 1<<10)
		if err != nil {
			return
		}
		// What was returned is followed by the mark at the start of a line,
		// and nothing more was read (what follows belongs to no request and
		// makes the next answer fail: see ask).
		if !strings.HasPrefix(string(b), string(out)+string(mark)) {
			t.Errorf("answer %q of input %q", out, b)
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			t.Errorf("mark not at a line start in %q", b)
		}
	})
}

func FuzzArgLine(f *testing.F) {
	f.Add("/tmp/a b.jpg")
	f.Add("/tmp/a\\b\nc\td\re")
	f.Fuzz(func(t *testing.T, path string) {
		line, err := argLine(path)
		if err != nil {
			return
		}
		if strings.ContainsAny(line, "\n\r") {
			t.Fatalf("line break in %q", line)
		}
		if got := unescapeCSTR(strings.TrimPrefix(line, "#[CSTR]")); got != path {
			t.Fatalf("%q read back as %q", path, got)
		}
	})
}

// unescapeCSTR reads a C string as exiftool does, for the four escapes
// argLine writes.
func unescapeCSTR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[n:]
	return n, nil
}

func absPath(t testing.TB, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
