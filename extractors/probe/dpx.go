package probe

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
)

// dpx reads the header of a DPX image (SMPTE 268M, versions 1 and 2), the
// frame format of film scanning and visual effects, in Go: no decoder runs
// and nothing but the header (at most 2048 bytes) is read. Every offset is
// checked against the header length the file declares and the bytes it
// holds, so a short or lying header gives what it has, or an error.
func init() {
	extractors.MustRegister(dpxInfo)
}

var dpxInfo = extractors.Info{
	Name:           "dpx",
	DisplayName:    "DPX Image Header",
	Family:         extractors.FamilyTechnical,
	Version:        "1.0.0",
	Implemented:    true,
	RangeReads:     true,
	DefaultEnabled: true,
	Accept:         acceptMIME([]string{"image/x-dpx", "image/dpx"}, "dpx"),
	Fields: []extractors.Field{
		{Path: "byte_order", Type: extractors.TypeString, Doc: "big-endian (magic SDPX) or little-endian (XPDS)"},
		{Path: "version", Type: extractors.TypeString, Doc: "header version (V1.0, V2.0)"},
		{Path: "image_offset", Type: extractors.TypeNumber, Doc: "bytes before the image data"},
		{Path: "file_size", Type: extractors.TypeNumber, Doc: "bytes, as the header declares"},
		{Path: "width", Type: extractors.TypeNumber, Doc: "pixels per line"},
		{Path: "height", Type: extractors.TypeNumber, Doc: "lines per element"},
		{Path: "orientation", Type: extractors.TypeString, Doc: "how lines and pixels are ordered (left-to-right, top-to-bottom; ...)"},
		{Path: "element_count", Type: extractors.TypeNumber, Doc: "image elements (1 to 8)"},
		{Path: "elements.descriptor", Type: extractors.TypeString, Doc: "components of the element (RGB, RGBA, Y, CbYCrY 4:2:2, ...)"},
		{Path: "elements.descriptor_code", Type: extractors.TypeNumber, Doc: "descriptor as the header writes it"},
		{Path: "elements.bit_depth", Type: extractors.TypeNumber, Doc: "bits per component (1, 8, 10, 12, 16, 32, 64)"},
		{Path: "elements.packing", Type: extractors.TypeString, Doc: "packed, filled method A or filled method B (into 32-bit words)"},
		{Path: "elements.encoding", Type: extractors.TypeString, Doc: "none or run-length"},
		{Path: "elements.transfer", Type: extractors.TypeString, Doc: "transfer characteristic (printing density, linear, logarithmic, BT.709, ...)"},
		{Path: "elements.colorimetric", Type: extractors.TypeString, Doc: "colorimetric specification (absent when the code is a transfer's only, as ffmpeg writes)"},
		{Path: "elements.signed", Type: extractors.TypeBool, Doc: "components are signed"},
		{Path: "elements.data_offset", Type: extractors.TypeNumber, Doc: "bytes before the element's data"},
		{Path: "elements.description", Type: extractors.TypeString, Doc: "element description"},
		{Path: "file_name", Type: extractors.TypeString, Doc: "file name recorded in the header"},
		{Path: "creation_time", Type: extractors.TypeString, Doc: "creation time as written (YYYY:MM:DD:hh:mm:ssLTZ)"},
		{Path: "created", Type: extractors.TypeDate, Doc: "creation time read as a date (UTC when the header gives no zone)"},
		{Path: "creator", Type: extractors.TypeString, Doc: "creator (the writing application or person)"},
		{Path: "project", Type: extractors.TypeString, Doc: "project name"},
		{Path: "copyright", Type: extractors.TypeString, Doc: "copyright statement"},
		{Path: "encrypted", Type: extractors.TypeBool, Doc: "the header declares an encryption key"},
		{Path: "pixel_aspect_ratio", Type: extractors.TypeString, Doc: "pixel aspect ratio (\"1:1\")"},
		{Path: "source_file_name", Type: extractors.TypeString, Doc: "source image file name (orientation header)"},
		{Path: "input_device", Type: extractors.TypeString, Doc: "input device name"},
		{Path: "input_device_serial", Type: extractors.TypeString, Doc: "input device serial number"},
		{Path: "film_frame_rate", Type: extractors.TypeNumber, Doc: "frames per second of the original film (film header)"},
		{Path: "frame_id", Type: extractors.TypeString, Doc: "frame identification (film header)"},
		{Path: "slate", Type: extractors.TypeString, Doc: "slate information (film header)"},
		{Path: "timecode", Type: extractors.TypeString, Doc: "SMPTE timecode HH:MM:SS:FF (television header)"},
		{Path: "frame_rate", Type: extractors.TypeNumber, Doc: "frames per second (television header's temporal sampling rate, else the film's), 3 decimals"},
		{Path: "interlaced", Type: extractors.TypeBool, Doc: "television header says interlaced (2:1)"},
	},
	New: newReader(readDPX),
}

// readDPX parses the headers of the item.
func readDPX(_ context.Context, _ *extractors.Runner, in *extractors.Input) (map[string]any, error) {
	src, err := open(in)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	head := make([]byte, min(src.Size, dpxMaxHeader))
	if _, err := src.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, extractors.Transient(fmt.Errorf("read %s: %w", in.Name, err))
	}
	return parseDPX(head)
}

const (
	// dpxMaxHeader: the generic and industry headers of the standard end
	// at 2048; user data after them is not read.
	dpxMaxHeader = 2048
	// dpxMinHeader: the generic file header and the image information
	// header, without which there is nothing to say.
	dpxMinHeader = 1408
	// dpxMaxDimension bounds believable picture sides (a header saying
	// more is reported, with the sides left out).
	dpxMaxDimension = 1 << 20
)

// errNotDPX says the bytes do not begin with a DPX magic number.
var errNotDPX = fmt.Errorf("not a DPX image: %w", extractors.ErrUnsupported)

// parseDPX reads a DPX header from the first bytes of a file (up to
// dpxMaxHeader of them).
func parseDPX(b []byte) (map[string]any, error) {
	if len(b) < 4 {
		return nil, errNotDPX
	}
	var bo binary.ByteOrder
	switch string(b[:4]) {
	case "SDPX":
		bo = binary.BigEndian
	case "XPDS":
		bo = binary.LittleEndian
	default:
		return nil, errNotDPX
	}
	if len(b) < dpxMinHeader {
		return nil, fmt.Errorf("dpx header cut short: %d bytes, the image information ends at %d", len(b), dpxMinHeader)
	}
	h := dpxHeader{b: b, bo: bo}
	// The header's own length: generic plus industry header sizes, bounded
	// by the image offset and by what the file holds. Fields past it are
	// not the header's (ffmpeg writes 1664 bytes: no film or television
	// header) and are not read.
	offset := h.u32(4)
	length := int64(len(b))
	if gen, ind := h.u32(24), h.u32(28); gen != dpxUndefined && gen >= dpxMinHeader {
		declared := int64(gen)
		if ind != dpxUndefined {
			declared += int64(ind)
		}
		length = min(length, declared)
	}
	if offset != dpxUndefined && int64(offset) >= dpxMinHeader {
		length = min(length, int64(offset))
	}
	h.b = b[:max(length, dpxMinHeader)]

	d := obj{}
	if bo == binary.BigEndian {
		d["byte_order"] = "big-endian"
	} else {
		d["byte_order"] = "little-endian"
	}
	d.str("version", h.text(8, 8))
	h.number(d, "image_offset", 4)
	h.number(d, "file_size", 16)
	d.str("file_name", h.text(36, 100))
	created := h.text(136, 24)
	d.str("creation_time", created)
	if t, ok := dpxTime(created); ok {
		d["created"] = t.Format(time.RFC3339)
	}
	d.str("creator", h.text(160, 100))
	d.str("project", h.text(260, 200))
	d.str("copyright", h.text(460, 200))
	if k := h.u32(660); k != dpxUndefined && k != 0 {
		d["encrypted"] = true
	} else {
		d["encrypted"] = false
	}

	// Image information header.
	if o := h.u16(768); o != 0xffff {
		d.str("orientation", dpxOrientations[o])
	}
	elements := int(h.u16(770))
	width, height := h.u32(772), h.u32(776)
	if width != dpxUndefined && width > 0 && width <= dpxMaxDimension {
		d["width"] = width
	}
	if height != dpxUndefined && height > 0 && height <= dpxMaxDimension {
		d["height"] = height
	}
	if elements > 8 || elements == 0 {
		return nil, fmt.Errorf("dpx header declares %d image elements (1 to 8)", elements)
	}
	d["element_count"] = elements
	var els []any
	for i := 0; i < elements; i++ {
		at := 780 + 72*i
		e := obj{}
		e["signed"] = h.u32(at) == 1
		desc := int(h.byte(at + 20))
		e["descriptor_code"] = desc
		e.str("descriptor", dpxDescriptor(desc))
		if depth := int(h.byte(at + 23)); depth > 0 && depth <= 64 {
			e["bit_depth"] = depth
		}
		if p := h.u16(at + 24); p != 0xffff {
			e.str("packing", dpxPackings[p])
		}
		if enc := h.u16(at + 26); enc != 0xffff {
			e.str("encoding", dpxEncodings[enc])
		}
		e.str("transfer", dpxCharacteristic(int(h.byte(at+21))))
		switch c := int(h.byte(at + 22)); c {
		case 2, 3, 11, 12: // transfer characteristics only: no colorimetry
		default:
			e.str("colorimetric", dpxCharacteristic(c))
		}
		h.number(e, "data_offset", at+28)
		e.str("description", h.text(at+40, 32))
		els = append(els, e)
	}
	d["elements"] = els

	// Image source (orientation) header, when the header is that long.
	if h.has(1664) {
		d.str("source_file_name", h.text(1432, 100))
		d.str("input_device", h.text(1556, 32))
		d.str("input_device_serial", h.text(1588, 32))
		if n, m := h.u32(1628), h.u32(1632); n != dpxUndefined && m != dpxUndefined && n > 0 && m > 0 {
			if r, ok := ratioOf(fmt.Sprintf("%d:%d", n, m)); ok {
				d["pixel_aspect_ratio"] = r
			}
		}
	}
	// Motion-picture film header.
	var filmRate float64
	if h.has(1920) {
		if r, ok := h.rate(1724); ok {
			filmRate = r
			d["film_frame_rate"] = r
		}
		d.str("frame_id", h.text(1732, 32))
		d.str("slate", h.text(1764, 100))
	}
	// Television header.
	if h.has(2048) {
		if tc, ok := dpxTimecode(h.u32(1920)); ok {
			d["timecode"] = tc
		}
		if il := h.byte(1928); il != 0xff {
			d["interlaced"] = il == 1
		}
		if r, ok := h.rate(1940); ok {
			d["frame_rate"] = r
		}
	}
	if _, ok := d["frame_rate"]; !ok && filmRate > 0 {
		d["frame_rate"] = filmRate
	}
	return d, nil
}

// dpxUndefined is how DPX marks an unset 32-bit field (all bits set).
const dpxUndefined = 0xffffffff

type dpxHeader struct {
	b  []byte
	bo binary.ByteOrder
}

// has reports whether the header holds the bytes up to end.
func (h dpxHeader) has(end int) bool { return end <= len(h.b) }

func (h dpxHeader) byte(at int) byte {
	if !h.has(at + 1) {
		return 0xff
	}
	return h.b[at]
}

func (h dpxHeader) u16(at int) uint16 {
	if !h.has(at + 2) {
		return 0xffff
	}
	return h.bo.Uint16(h.b[at:])
}

func (h dpxHeader) u32(at int) uint32 {
	if !h.has(at + 4) {
		return dpxUndefined
	}
	return h.bo.Uint32(h.b[at:])
}

// number sets a defined 32-bit field.
func (h dpxHeader) number(o obj, k string, at int) {
	if v := h.u32(at); v != dpxUndefined {
		o[k] = v
	}
}

// rate reads a frame rate (a 32-bit float): false when undefined or not
// a believable rate.
func (h dpxHeader) rate(at int) (float64, bool) {
	v := h.u32(at)
	if v == dpxUndefined {
		return 0, false
	}
	f := float64(math.Float32frombits(v))
	if math.IsNaN(f) || f < 0.5 || f > 1000 {
		return 0, false
	}
	return round3(f), true
}

// text reads a NUL-terminated ASCII field; bytes that are not printable
// end it too (unset fields are often all 0xff).
func (h dpxHeader) text(at, n int) string {
	if !h.has(at + n) {
		return ""
	}
	f := h.b[at : at+n]
	if i := bytes.IndexByte(f, 0); i >= 0 {
		f = f[:i]
	}
	for i, c := range f {
		if c < 0x20 || c == 0x7f || c == 0xff {
			f = f[:i]
			break
		}
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(f), "\uFFFD"))
}

// dpxTimecode reads the television header's BCD timecode HHMMSSFF; false
// when undefined or not BCD.
func dpxTimecode(v uint32) (string, bool) {
	if v == dpxUndefined {
		return "", false
	}
	var parts [4]int
	for i := 0; i < 4; i++ {
		b := byte(v >> (24 - 8*i))
		hi, lo := int(b>>4), int(b&0x0f)
		if hi > 9 || lo > 9 {
			return "", false
		}
		parts[i] = hi*10 + lo
	}
	if parts[0] > 23 || parts[1] > 59 || parts[2] > 59 {
		return "", false
	}
	return fmt.Sprintf("%02d:%02d:%02d:%02d", parts[0], parts[1], parts[2], parts[3]), true
}

// dpxTime reads the creation time "YYYY:MM:DD:hh:mm:ssLTZ" (the zone, when
// present, as +hh, +hhmm or a name the header's writer chose).
func dpxTime(s string) (time.Time, bool) {
	if len(s) < 19 {
		return time.Time{}, false
	}
	t, err := time.Parse("2006:01:02:15:04:05", s[:19])
	if err != nil {
		return time.Time{}, false
	}
	zone := strings.TrimSpace(s[19:])
	for _, layout := range []string{"-07", "-0700", "-07:00", "Z07:00"} {
		if z, err := time.Parse(layout, zone); err == nil {
			_, off := z.Zone()
			t = t.Add(-time.Duration(off) * time.Second)
			break
		}
	}
	return t.UTC(), true
}

var dpxOrientations = map[uint16]string{
	0: "left-to-right, top-to-bottom", 1: "right-to-left, top-to-bottom",
	2: "left-to-right, bottom-to-top", 3: "right-to-left, bottom-to-top",
	4: "top-to-bottom, left-to-right", 5: "top-to-bottom, right-to-left",
	6: "bottom-to-top, left-to-right", 7: "bottom-to-top, right-to-left",
}

var dpxPackings = map[uint16]string{0: "packed", 1: "filled method A", 2: "filled method B"}

var dpxEncodings = map[uint16]string{0: "none", 1: "run-length"}

// dpxDescriptor names an image element descriptor.
func dpxDescriptor(d int) string {
	switch d {
	case 0:
		return "user-defined"
	case 1:
		return "R"
	case 2:
		return "G"
	case 3:
		return "B"
	case 4:
		return "A"
	case 6:
		return "Y"
	case 7:
		return "CbCr"
	case 8:
		return "Z"
	case 9:
		return "composite video"
	case 50:
		return "RGB"
	case 51:
		return "RGBA"
	case 52:
		return "ABGR"
	case 100:
		return "CbYCrY (4:2:2)"
	case 101:
		return "CbYaCrYa (4:2:2:4)"
	case 102:
		return "CbYCr (4:4:4)"
	case 103:
		return "CbYCrA (4:4:4:4)"
	}
	if d >= 150 && d <= 156 {
		return fmt.Sprintf("user-defined %d-component", d-148)
	}
	return ""
}

// dpxCharacteristic names a transfer characteristic or colorimetric
// specification (the two share their codes; linear, logarithmic and the
// depth codes are transfers only).
func dpxCharacteristic(c int) string {
	switch c {
	case 0:
		return "user-defined"
	case 1:
		return "printing density"
	case 2:
		return "linear"
	case 3:
		return "logarithmic"
	case 4:
		return "unspecified video"
	case 5:
		return "SMPTE 274M"
	case 6:
		return "ITU-R BT.709"
	case 7:
		return "ITU-R BT.601 (625 lines)"
	case 8:
		return "ITU-R BT.601 (525 lines)"
	case 9:
		return "NTSC composite"
	case 10:
		return "PAL composite"
	case 11:
		return "Z linear"
	case 12:
		return "Z homogeneous"
	}
	return ""
}
