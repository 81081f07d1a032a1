package images

import (
	"bufio"
	"encoding/binary"
	"image"
	"io"
)

// JPEG EXIF orientation: Go's decoder ignores it, so a phone picture taken
// upright but stored sideways (orientation 6) would give a sideways
// thumbnail and faces the detector cannot find. The tag is read here from
// the first EXIF segment, without a general EXIF parser: a few bounded
// reads before the image data.

const (
	// maxSegments bounds the markers read before giving up on finding EXIF.
	maxSegments = 64
	// tagOrientation is the EXIF Orientation tag of IFD0.
	tagOrientation = 0x0112
)

// JPEGOrientation returns the EXIF orientation (1-8) of the JPEG read from
// r, or 1 when it has none or it cannot be read: a damaged EXIF segment
// leaves the picture as stored. It reads no further than the start of the
// image data.
func JPEGOrientation(r io.Reader) int {
	br := bufio.NewReaderSize(r, 4096)
	var soi [2]byte
	if _, err := io.ReadFull(br, soi[:]); err != nil || soi[0] != 0xFF || soi[1] != 0xD8 {
		return 1
	}
	for range maxSegments {
		marker, err := nextMarker(br)
		if err != nil {
			return 1
		}
		switch {
		case marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7):
			continue // no length
		case marker == 0xDA || marker == 0xD9:
			return 1 // image data (or the end) before any orientation
		}
		var l [2]byte
		if _, err := io.ReadFull(br, l[:]); err != nil {
			return 1
		}
		n := int(binary.BigEndian.Uint16(l[:])) - 2
		if n < 0 {
			return 1
		}
		if marker != 0xE1 {
			if _, err := br.Discard(n); err != nil {
				return 1
			}
			continue
		}
		payload := make([]byte, n) // at most 64 KiB
		if _, err := io.ReadFull(br, payload); err != nil {
			return 1
		}
		if len(payload) >= 6 && string(payload[:6]) == "Exif\x00\x00" {
			return TIFFOrientation(payload[6:])
		}
	}
	return 1
}

// nextMarker skips to the next marker (0xFF, fill bytes, code) and returns
// its code.
func nextMarker(br *bufio.Reader) (byte, error) {
	b, err := br.ReadByte()
	if err != nil {
		return 0, err
	}
	if b != 0xFF {
		return 0, io.ErrUnexpectedEOF // not at a marker: give up
	}
	for {
		b, err = br.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != 0xFF {
			return b, nil
		}
	}
}

// TIFFOrientation reads the Orientation tag of IFD0 of a TIFF structure
// (the body of an EXIF segment); 1 when absent or malformed.
func TIFFOrientation(tiff []byte) int {
	if len(tiff) < 8 {
		return 1
	}
	var order binary.ByteOrder
	switch string(tiff[:2]) {
	case "II":
		order = binary.LittleEndian
	case "MM":
		order = binary.BigEndian
	default:
		return 1
	}
	if order.Uint16(tiff[2:]) != 42 {
		return 1
	}
	ifd := int64(order.Uint32(tiff[4:]))
	if ifd < 8 || ifd+2 > int64(len(tiff)) {
		return 1
	}
	count := int64(order.Uint16(tiff[ifd:]))
	for i := range count {
		e := ifd + 2 + i*12
		if e+12 > int64(len(tiff)) {
			return 1
		}
		if order.Uint16(tiff[e:]) != tagOrientation {
			continue
		}
		typ, n := order.Uint16(tiff[e+2:]), order.Uint32(tiff[e+4:])
		if typ != 3 || n != 1 { // one SHORT, stored in the entry itself
			return 1
		}
		if o := int(order.Uint16(tiff[e+8:])); o >= 1 && o <= 8 {
			return o
		}
		return 1
	}
	return 1
}

// Orient returns img turned as EXIF orientation o asks for display
// (2 mirrored, 3 upside down, 6 turned 90° clockwise to view, 8 turned
// 90° anticlockwise, 5 and 7 mirrored and turned). img is returned as is
// for 1 or an unknown value.
func Orient(img *image.RGBA, o int) *image.RGBA {
	if o < 2 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		for x := range dw {
			var sx, sy int
			switch o {
			case 2:
				sx, sy = w-1-x, y
			case 3:
				sx, sy = w-1-x, h-1-y
			case 4:
				sx, sy = x, h-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, h-1-x
			case 7:
				sx, sy = w-1-y, h-1-x
			case 8:
				sx, sy = w-1-y, x
			}
			si := img.PixOffset(b.Min.X+sx, b.Min.Y+sy)
			di := dst.PixOffset(x, y)
			copy(dst.Pix[di:di+4], img.Pix[si:si+4])
		}
	}
	return dst
}
