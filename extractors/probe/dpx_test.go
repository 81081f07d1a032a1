package probe

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// DPX images written by ffmpeg's dpx encoder. Expected values read with
// exiftool 12.57 (by hand): big-endian V1.0, 64x48, 1 element, "R, G, B",
// transfer Linear, colorimetric 2, bit depth 16 (rgb48be) or 10
// (gbrp10le, little-endian), aspect 1:1, creator "Lavc..."; colorimetric
// 2 is a transfer's code, exiftool's "Unknown (2)". ffmpeg writes
// a 1664-byte header: no film or television header, whose bytes are pixels
// (exiftool reads them anyway and shows garbage; dpx must not).
func TestDPXFromFFmpeg(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	for _, c := range []struct {
		pixFmt, order   string
		depth           float64
		packing, offset any
	}{
		{"rgb48be", "big-endian", 16, "packed", 1664.0},
		{"gbrp10le", "little-endian", 10, "filled method A", 1664.0},
	} {
		p := filepath.Join(dir, c.pixFmt+".dpx")
		extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=s=64x48:d=0.04", "-frames:v", "1", "-c:v", "dpx", "-pix_fmt", c.pixFmt, p)
		d := extractortest.Data(t, run(t, reg, "dpx", p))
		for k, want := range map[string]any{"byte_order": c.order, "version": "V1.0", "width": 64.0, "height": 48.0,
			"element_count": 1.0, "orientation": "left-to-right, top-to-bottom", "image_offset": c.offset,
			"pixel_aspect_ratio": "1:1", "encrypted": false} {
			if d[k] != want {
				t.Errorf("%s: %s = %v, want %v", c.pixFmt, k, d[k], want)
			}
		}
		if creator, _ := d["creator"].(string); !strings.HasPrefix(creator, "Lavc") {
			t.Errorf("%s: creator %q", c.pixFmt, d["creator"])
		}
		el := d["elements"].([]any)[0].(map[string]any)
		for k, want := range map[string]any{"descriptor": "RGB", "descriptor_code": 50.0, "bit_depth": c.depth,
			"packing": c.packing, "transfer": "linear", "colorimetric": nil, "signed": false, "data_offset": 1664.0} {
			if el[k] != want {
				t.Errorf("%s: element %s = %v, want %v", c.pixFmt, k, el[k], want)
			}
		}
		for _, k := range []string{"timecode", "frame_rate", "film_frame_rate", "interlaced"} {
			if v, ok := d[k]; ok {
				t.Errorf("%s: %s = %v read from beyond the header", c.pixFmt, k, v)
			}
		}
	}
}

// fullDPX turns ffmpeg's DPX into one with the whole standard header: the
// film and television headers after the 1664 bytes, the image data moved
// to 2048, and the text and time fields set, all at the offsets of SMPTE
// 268M. exiftool 12.57 reads the result as: Create Date 2024:05:06
// 07:08:09+02, Creator "metaharvest test", Project "Probe", Copyright
// "(c) nobody", Original Frame Rate 24, Frame ID "reel1-0042", Time Code
// 270544900 (0x10203004: BCD 10:20:30:04), Frame Rate 25.
func fullDPX(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	bo := binary.ByteOrder(binary.BigEndian)
	if string(b[:4]) == "XPDS" {
		bo = binary.LittleEndian
	}
	head := make([]byte, 2048)
	copy(head, b[:1664])
	for i := 1664; i < 2048; i++ {
		head[i] = 0xff // undefined
	}
	text := func(at, n int, s string) {
		copy(head[at:at+n], make([]byte, n))
		copy(head[at:at+n], s)
	}
	bo.PutUint32(head[4:], 2048)                      // image data offset
	bo.PutUint32(head[16:], uint32(len(b)-1664+2048)) // file size
	bo.PutUint32(head[24:], 1664)                     // generic header size
	bo.PutUint32(head[28:], 384)                      // industry header size
	text(136, 24, "2024:05:06:07:08:09+02")
	text(160, 100, "metaharvest test")
	text(260, 200, "Probe")
	text(460, 200, "(c) nobody")
	bo.PutUint32(head[780+28:], 2048) // element 1 data offset
	bo.PutUint32(head[1724:], math.Float32bits(24))
	text(1732, 32, "reel1-0042")
	bo.PutUint32(head[1920:], 0x10203004)
	head[1928] = 0 // not interlaced
	bo.PutUint32(head[1940:], math.Float32bits(25))
	p := filepath.Join(filepath.Dir(src), "full-"+filepath.Base(src))
	if err := os.WriteFile(p, append(head, b[1664:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDPXFullHeader(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	for _, pixFmt := range []string{"rgb48be", "gbrp10le"} {
		src := filepath.Join(dir, pixFmt+".dpx")
		extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=s=64x48:d=0.04", "-frames:v", "1", "-c:v", "dpx", "-pix_fmt", pixFmt, src)
		d := extractortest.Data(t, run(t, reg, "dpx", fullDPX(t, src)))
		for k, want := range map[string]any{
			"creation_time": "2024:05:06:07:08:09+02", "created": "2024-05-06T05:08:09Z", "creator": "metaharvest test",
			"project": "Probe", "copyright": "(c) nobody", "film_frame_rate": 24.0, "frame_id": "reel1-0042",
			"timecode": "10:20:30:04", "frame_rate": 25.0, "interlaced": false, "image_offset": 2048.0, "width": 64.0,
		} {
			if d[k] != want {
				t.Errorf("%s: %s = %v, want %v", pixFmt, k, d[k], want)
			}
		}
	}
}

func TestDPXRefusals(t *testing.T) {
	t.Parallel()
	valid := make([]byte, 2048)
	copy(valid, "SDPX")
	binary.BigEndian.PutUint32(valid[4:], 2048)
	binary.BigEndian.PutUint16(valid[770:], 1)
	for name, c := range map[string]struct {
		b           []byte
		unsupported bool
	}{
		"empty":            {nil, true},
		"png":              {[]byte("\x89PNG\r\n\x1a\n"), true},
		"cut short":        {valid[:1000], false},
		"nine elements":    {func() []byte { b := append([]byte{}, valid...); binary.BigEndian.PutUint16(b[770:], 9); return b }(), false},
		"no elements":      {func() []byte { b := append([]byte{}, valid...); binary.BigEndian.PutUint16(b[770:], 0); return b }(), false},
		"magic only, long": {append([]byte("XPDS"), make([]byte, 3000)...), false},
	} {
		_, err := parseDPX(c.b)
		if err == nil {
			t.Errorf("%s: parsed", name)
		} else if errorsIsUnsupported(err) != c.unsupported {
			t.Errorf("%s: %v (unsupported: want %v)", name, err, c.unsupported)
		}
	}
	// A header whose sides and rates are absurd keeps them out.
	b := append([]byte{}, valid...)
	binary.BigEndian.PutUint32(b[772:], 1<<30)
	binary.BigEndian.PutUint32(b[1940:], math.Float32bits(float32(math.NaN())))
	d, err := parseDPX(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d["width"]; ok {
		t.Errorf("width %v kept", d["width"])
	}
	if _, ok := d["frame_rate"]; ok {
		t.Errorf("frame rate %v kept", d["frame_rate"])
	}
	if !reflect.DeepEqual(d["element_count"], 1) {
		t.Errorf("element_count %v", d["element_count"])
	}
}

func TestDPXTimes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"2024:05:06:07:08:09":       "2024-05-06T07:08:09Z",
		"2024:05:06:07:08:09Z":      "2024-05-06T07:08:09Z",
		"2024:05:06:07:08:09-0130":  "2024-05-06T08:38:09Z",
		"2024:05:06:07:08:09 local": "2024-05-06T07:08:09Z",
		"2024:13:06:07:08:09":       "",
		"yesterday":                 "",
	} {
		got := ""
		if tm, ok := dpxTime(in); ok {
			got = tm.Format("2006-01-02T15:04:05Z07:00")
		}
		if got != want {
			t.Errorf("dpxTime(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[uint32]string{0x01020304: "01:02:03:04", 0x23595929: "23:59:59:29", 0xffffffff: "", 0x0a000000: "", 0x24000000: ""} {
		if got, _ := dpxTimecode(in); got != want {
			t.Errorf("dpxTimecode(%#x) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseDPX(f *testing.F) {
	valid := make([]byte, 2048)
	copy(valid, "SDPX")
	binary.BigEndian.PutUint32(valid[4:], 2048)
	binary.BigEndian.PutUint32(valid[24:], 1664)
	binary.BigEndian.PutUint32(valid[28:], 384)
	binary.BigEndian.PutUint16(valid[770:], 8)
	f.Add(valid)
	le := append([]byte{}, valid...)
	copy(le, "XPDS")
	f.Add(le)
	f.Add(valid[:1500])
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > dpxMaxHeader {
			b = b[:dpxMaxHeader]
		}
		d, err := parseDPX(b)
		if err != nil {
			return
		}
		if n, _ := d["element_count"].(int); n < 1 || n > 8 {
			t.Fatalf("element_count %v", d["element_count"])
		}
	})
}
