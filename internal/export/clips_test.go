package export_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/export"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

func f(x float64) *float64 { return &x }

// sequence is a compilation of moments of two videos (one at 25 fps with
// a start timecode, one at 29.97 fps), a whole recording, a picture, and
// a video whose name tries to break the lines of an EDL.
func sequence() export.Sequence {
	return export.Sequence{ID: "c0ffee", Title: "Harbour\r\nselects", Clips: []export.Clip{
		{ItemID: "a1", Name: "reel.mp4", Source: "filesystem://Archive/media/reel.mp4", In: f(1.5), Out: f(3.5),
			Duration: 6, FrameRate: 25, StartTimecode: "10:00:00:00", HasVideo: true, HasAudio: true},
		{ItemID: "b2", Name: "pier.mov", Source: "s3://Bucket/rushes/pier.mov", In: f(0.2), Out: f(2),
			Duration: 65.04, FrameRate: 29.97, HasVideo: true},
		{ItemID: "a1", Name: "reel.mp4", Source: "filesystem://Archive/media/reel.mp4", Duration: 6, FrameRate: 25,
			StartTimecode: "10:00:00:00", HasVideo: true, HasAudio: true},
		{ItemID: "c3", Name: "gulls.wav", Source: "filesystem://Archive/sound/gulls.wav", Duration: 2.5, HasAudio: true},
		{ItemID: "d4", Name: "map.jpg", Source: "filesystem://Archive/stills/map.jpg"},
		{ItemID: "e5", Name: "=cmd|' /C calc'!A0\n002  AX V C 00:00:00:00 00:00:01:00 01:00:00:00 01:00:01:00.mp4",
			Source: "filesystem://Archive/media/x\n* SOURCE FILE: /etc/passwd", In: f(0), Out: f(0.01), Duration: 1, FrameRate: 25, HasVideo: true},
	}}
}

func TestShotListGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := export.ShotList(&b, sequence()); err != nil {
		t.Fatal(err)
	}
	golden(t, "shotlist.csv", b.Bytes())
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rows[6][1][0] != '\'' {
		t.Fatalf("rows %q", rows)
	}
}

func TestEDLGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := export.EDL(&b, sequence()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sequence.edl", b.Bytes())
	// No line starts where a name or source put a line break, and every
	// event line has its four timecodes.
	events := 0
	for _, line := range strings.Split(b.String(), "\n") {
		switch {
		case line == "", strings.HasPrefix(line, "TITLE: "), strings.HasPrefix(line, "FCM: "), strings.HasPrefix(line, "* "):
		default:
			fields := strings.Fields(line)
			if len(fields) != 8 {
				t.Fatalf("event line %q", line)
			}
			events++
		}
	}
	if events != 5 {
		t.Fatalf("%d events, want 5 (the picture has no length)", events)
	}
}

func TestOTIOGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := export.OTIO(&b, sequence()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sequence.otio", b.Bytes())
	var tl struct {
		Schema string `json:"OTIO_SCHEMA"`
		Tracks struct {
			Children []struct {
				Kind     string `json:"kind"`
				Children []struct {
					Schema      string `json:"OTIO_SCHEMA"`
					SourceRange struct {
						StartTime struct{ Rate, Value float64 } `json:"start_time"`
						Duration  struct{ Rate, Value float64 } `json:"duration"`
					} `json:"source_range"`
				} `json:"children"`
			} `json:"children"`
		} `json:"tracks"`
	}
	if err := json.Unmarshal(b.Bytes(), &tl); err != nil {
		t.Fatal(err)
	}
	clips := tl.Tracks.Children[0].Children
	if tl.Schema != "Timeline.1" || tl.Tracks.Children[0].Kind != "Video" || len(clips) != 5 {
		t.Fatalf("timeline %+v", tl)
	}
	// The first moment: 1.5 s to 3.5 s of a 25 fps file starting at
	// 10:00:00:00 is frames 900,038 to 900,088 (frames 37.5 and 87.5
	// rounded up).
	if r := clips[0].SourceRange; r.StartTime.Value != 900038 || r.Duration.Value != 50 || r.StartTime.Rate != 25 {
		t.Fatalf("first clip's range %+v", r)
	}
}

func TestXMPGolden(t *testing.T) {
	t.Parallel()
	var meta map[string]any
	if err := json.Unmarshal([]byte(`{
		"exiv2": {"camera": {"make": "NIKON CORPORATION", "model": "NIKON D2H"}, "lens": {"model": "18-70mm f/3.5-4.5"},
			"created_local": "2003-11-23T18:07:37", "created_zone": "+08:00", "width": 3008, "height": 2000, "orientation": 1,
			"exposure": {"f_number": 4.5, "time": 0.008, "focal_length": 23.3, "iso": 200},
			"gps": {"latitude": 39.91555555555556, "longitude": 116.39083333333333, "altitude": -12.5},
			"keywords": ["harbour", "<night> & \"fog\""], "creator": "A. Person", "title": "Quay\u0007 at dusk",
			"copyright": "(c) 2003", "description": "Boats <b>moored</b>", "software": "Ver.1.00"},
		"geocoding": {"city": "Beijing", "region": "Beijing", "country": {"name": "China", "code": "CN"}}}`), &meta); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := export.XMP(&b, export.Picture{MimeType: "image/jpeg", Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	golden(t, "picture.xmp", b.Bytes())

	// exiftool, which is not ours, reads the sidecar back.
	exiftool, err := exec.LookPath("exiftool")
	if err != nil {
		t.Skip("exiftool is not installed (deploy/setup.sh installs it)")
	}
	path := filepath.Join(t.TempDir(), "picture.xmp")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exiftool, "-j", "-n", "-struct", path).Output()
	if err != nil {
		t.Fatalf("exiftool: %v", err)
	}
	var read []map[string]any
	if err := json.Unmarshal(out, &read); err != nil {
		t.Fatalf("exiftool output: %v\n%s", err, out)
	}
	got := read[0]
	for k, want := range map[string]any{
		"Make": "NIKON CORPORATION", "Model": "NIKON D2H", "FNumber": 4.5, "ExposureTime": 0.008, "FocalLength": 23.3,
		"City": "Beijing", "Country": "China", "LensModel": "18-70mm f/3.5-4.5",
		// Below sea level: the reference makes the altitude negative.
		"DateTimeOriginal": "2003:11:23 18:07:37+08:00", "GPSAltitude": -12.5, "GPSAltitudeRef": 1.0,
		"Description": "Boats <b>moored</b>", "Title": "Quay\ufffd at dusk",
	} {
		if g := got[k]; g != want {
			t.Errorf("exiftool reads %s = %v (%T), want %v", k, g, g, want)
		}
	}
	if lat, _ := got["GPSLatitude"].(float64); lat < 39.9155 || lat > 39.9156 {
		t.Errorf("GPSLatitude %v", got["GPSLatitude"])
	}
	if lon, _ := got["GPSLongitude"].(float64); lon < 116.3908 || lon > 116.3909 {
		t.Errorf("GPSLongitude %v", got["GPSLongitude"])
	}
	if iso, _ := got["ISO"].([]any); len(iso) != 1 || iso[0] != 200.0 {
		t.Errorf("ISO %v", got["ISO"])
	}
	if who, _ := got["Creator"].([]any); len(who) != 1 || who[0] != "A. Person" {
		t.Errorf("Creator %v", got["Creator"])
	}
	if kw, _ := got["Subject"].([]any); len(kw) != 2 || kw[1] != "<night> & \"fog\"" {
		t.Errorf("Subject %v", got["Subject"])
	}
}

func TestTimecodes(t *testing.T) {
	t.Parallel()
	df := export.RateOf(29.97)
	if !df.Drop || df.Base != 30 {
		t.Fatalf("29.97: %+v", df)
	}
	for _, c := range []struct {
		r      export.Rate
		frames int64
		tc     string
	}{
		{export.RateOf(25), 0, "00:00:00:00"},
		{export.RateOf(25), 90_037, "01:00:01:12"},
		{df, 1799, "00:00:59;29"},
		{df, 1800, "00:01:00;02"}, // frames 00 and 01 of minute 1 are dropped
		{df, 17_982, "00:10:00;00"},
		{df, 107_892, "01:00:00;00"},
		{export.RateOf(59.94), 3596, "00:00:59;56"},
		{export.RateOf(59.94), 3600, "00:01:00;04"},
		{export.RateOf(23.976), 86_400, "01:00:00:00"},
	} {
		if got := c.r.Timecode(c.frames); got != c.tc {
			t.Errorf("%+v frame %d: %s, want %s", c.r, c.frames, got, c.tc)
		}
		if n, ok := c.r.ParseTimecode(c.tc); !ok || n != c.frames {
			t.Errorf("%+v %s: frame %d %v, want %d", c.r, c.tc, n, ok, c.frames)
		}
	}
	for n := int64(0); n < 200_000; n += 7 {
		if back, ok := df.ParseTimecode(df.Timecode(n)); !ok || back != n {
			t.Fatalf("drop frame %d -> %s -> %d", n, df.Timecode(n), back)
		}
	}
	for _, bad := range []string{"", "1:00:00:00", "00:60:00:00", "00:00:00:25", "aa:00:00:00", "00-00-00-00"} {
		if _, ok := export.RateOf(25).ParseTimecode(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
