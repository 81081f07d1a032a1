package probe

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// The ISO base media file format (MP4, MOV, 3GP, fragmented MP4) as far as
// drm and mediainfo need it: which tracks are encrypted and how (encv/enca
// sample entries, sinf/frma/schm/tenc), the pssh boxes of DRM systems, and
// whether a video track's frame durations are constant (stts). The walk
// reads box headers and only the few small boxes it needs, with caps on the
// number of boxes, the depth and every payload it reads, so a hostile file
// (a million tiny boxes, a size pointing past the end, a box containing
// itself) costs a bounded amount of reading and memory.

const (
	// maxBoxes bounds the boxes one walk looks at; a file with more is
	// reported as walked in part.
	maxBoxes = 20000
	// maxDepth bounds nesting (moov/trak/mdia/minf/stbl/stsd/encv/sinf/schi/tenc is 10).
	maxDepth = 12
	// maxPayload bounds what is read of one box (pssh data, tenc, stsd
	// entries' headers).
	maxPayload = 64 << 10
	// maxSttsEntries bounds the time-to-sample entries read to judge a
	// frame rate constant.
	maxSttsEntries = 1 << 16
	// maxFragmentsOpened: only the first movie fragments are looked into
	// (their pssh and encryption boxes repeat the first's); the others are
	// counted from their headers.
	maxFragmentsOpened = 4
)

// mp4Info is what the walk found.
type mp4Info struct {
	// Brand is the ftyp major brand ("isom", "qt  "); "" without ftyp.
	Brand  string
	Tracks []mp4Track
	PSSH   []psshBox
	// Fragments counts the moof boxes walked (fragmented files carry their
	// samples there); the walk ends once the moov and maxFragmentsOpened
	// fragments are seen.
	Fragments int
	// Boxes is how many boxes were looked at; Partial says the walk stopped
	// at a cap (or at a box running past the end of the file) before the end.
	Boxes   int
	Partial bool
	// EncryptionBoxes counts senc/saiz/saio boxes (sample encryption data)
	// in the fragments looked into.
	EncryptionBoxes int
}

// mp4Track is one trak.
type mp4Track struct {
	ID      uint32
	Handler string // vide, soun, subt, text, tmcd, ...
	// Entry is the sample entry type ("avc1", "encv"); Original is the
	// format an encrypted entry protects (frma), Scheme its protection
	// scheme (schm: "cenc", "cbcs", "cens", "cbc1").
	Entry, Original, Scheme string
	// KID is the default key id of the track (tenc), as a UUID string.
	KID string
	// Protected: a sample entry is encv/enca/encs/enct or has a sinf.
	Protected bool
	// Timescale of the media (mdhd), and the frame durations in it (stts):
	// Deltas holds the distinct sample durations, each once, in order (at
	// most a few are kept); SttsRead says stts was read whole.
	Timescale uint32
	Deltas    []uint32
	SttsRead  bool
	// lastDeltaOnce: the last stts entry covers one sample (the last
	// sample's duration often differs in constant-rate files).
	lastDeltaOnce bool
	lastDelta     uint32
}

// psshBox is a protection system specific header.
type psshBox struct {
	SystemID string // UUID string
	KIDs     []string
	DataSize int
}

// errNotMP4 says the file does not start like an ISO base media file.
var errNotMP4 = errors.New("not an ISO base media file")

type boxHeader struct {
	typ          string
	start        int64 // of the header
	headerLen    int64
	size         int64 // whole box, header included
	extendsToEnd bool
}

type mp4Walker struct {
	r    io.ReaderAt
	info *mp4Info
	moov bool // the movie box was walked
	buf  [16]byte
}

// readMP4 walks the boxes of r (size bytes long). A file that does not
// begin with a plausible top-level box gives errNotMP4; past that, what
// cannot be read (a truncated file, a box running past its container) ends
// the walk of that container and sets Partial.
func readMP4(r io.ReaderAt, size int64) (*mp4Info, error) {
	w := &mp4Walker{r: r, info: &mp4Info{}}
	first, err := w.header(0, size)
	if err != nil || !topLevel[first.typ] {
		return nil, errNotMP4
	}
	w.children(0, size, 0, nil)
	return w.info, nil
}

// topLevel are the boxes an ISO file or a QuickTime movie may begin with.
var topLevel = map[string]bool{"ftyp": true, "styp": true, "moov": true, "mdat": true, "free": true, "skip": true,
	"wide": true, "pnot": true, "sidx": true, "moof": true, "uuid": true, "pdin": true, "meta": true}

// header reads the box header at off, which must end by limit.
func (w *mp4Walker) header(off, limit int64) (boxHeader, error) {
	h := boxHeader{start: off}
	if limit-off < 8 {
		return h, io.ErrUnexpectedEOF
	}
	if _, err := w.r.ReadAt(w.buf[:8], off); err != nil {
		return h, err
	}
	size := int64(binary.BigEndian.Uint32(w.buf[:4]))
	h.typ = string(w.buf[4:8])
	h.headerLen = 8
	switch size {
	case 0: // to the end of the enclosing space
		h.size = limit - off
		h.extendsToEnd = true
	case 1:
		if limit-off < 16 {
			return h, io.ErrUnexpectedEOF
		}
		if _, err := w.r.ReadAt(w.buf[8:16], off+8); err != nil {
			return h, err
		}
		large := binary.BigEndian.Uint64(w.buf[8:16])
		if large > uint64(limit-off) || large < 16 {
			return h, fmt.Errorf("box %q at %d: size %d beyond its space", printable(h.typ), off, large)
		}
		h.size, h.headerLen = int64(large), 16
	default:
		h.size = size
	}
	if h.size < h.headerLen || h.size > limit-off {
		return h, fmt.Errorf("box %q at %d: size %d beyond its space", printable(h.typ), off, h.size)
	}
	for _, c := range []byte(h.typ) {
		if c < 0x20 || c > 0x7e {
			if c != 0xa9 { // © of QuickTime user data
				return h, fmt.Errorf("box at %d: type is not text", off)
			}
		}
	}
	return h, nil
}

// children walks the boxes between start and end, at depth, inside track
// (nil outside a trak).
func (w *mp4Walker) children(start, end int64, depth int, track *mp4Track) {
	if depth > maxDepth {
		w.info.Partial = true
		return
	}
	for off := start; off < end; {
		if w.info.Boxes >= maxBoxes {
			w.info.Partial = true
			return
		}
		if end-off < 8 { // padding at the end of a container
			return
		}
		if depth == 0 && w.moov && w.info.Fragments >= maxFragmentsOpened {
			return // the rest are fragments like those looked into
		}
		h, err := w.header(off, end)
		if err != nil {
			// A truncated file, or a box running past its container: keep
			// what came before.
			w.info.Partial = true
			return
		}
		w.info.Boxes++
		w.box(h, depth, track)
		off += h.size
	}
}

// maxTracks bounds the tracks kept.
const maxTracks = 256

// box handles one box.
func (w *mp4Walker) box(h boxHeader, depth int, track *mp4Track) {
	body, end := h.start+h.headerLen, h.start+h.size
	switch h.typ {
	case "ftyp":
		if depth == 0 && w.info.Brand == "" {
			if b, err := w.payload(h, 4); err == nil && len(b) == 4 {
				w.info.Brand = string(b)
			}
		}
	case "moov", "mdia", "minf", "stbl", "dinf", "mvex", "edts", "schi", "traf":
		w.children(body, end, depth+1, track)
		if h.typ == "moov" && depth == 0 {
			w.moov = true
		}
	case "moof":
		w.info.Fragments++
		if w.info.Fragments <= maxFragmentsOpened {
			w.children(body, end, depth+1, track)
		}
	case "trak":
		if track != nil || len(w.info.Tracks) >= maxTracks {
			return // a trak inside a trak is not a track
		}
		t := &mp4Track{}
		w.children(body, end, depth+1, t)
		w.info.Tracks = append(w.info.Tracks, *t)
	case "tkhd":
		if track != nil {
			b, err := w.payload(h, 24)
			if err == nil && len(b) >= 24 {
				if b[0] == 1 {
					track.ID = binary.BigEndian.Uint32(b[20:24])
				} else {
					track.ID = binary.BigEndian.Uint32(b[12:16])
				}
			}
		}
	case "hdlr":
		if track != nil {
			if b, err := w.payload(h, 12); err == nil && len(b) >= 12 && track.Handler == "" {
				track.Handler = string(b[8:12])
			}
		}
	case "mdhd":
		if track != nil {
			b, err := w.payload(h, 24)
			if err == nil && len(b) >= 24 {
				if b[0] == 1 {
					track.Timescale = binary.BigEndian.Uint32(b[20:24])
				} else {
					track.Timescale = binary.BigEndian.Uint32(b[12:16])
				}
			}
		}
	case "stts":
		if track != nil {
			w.stts(h, track)
		}
	case "stsd":
		if track != nil {
			w.stsd(h, depth, track)
		}
	case "sinf":
		if track != nil {
			track.Protected = true
		}
		w.children(body, end, depth+1, track)
	case "frma":
		if track != nil {
			if b, err := w.payload(h, 4); err == nil && len(b) == 4 {
				track.Original = string(b)
			}
		}
	case "schm":
		if track != nil {
			if b, err := w.payload(h, 8); err == nil && len(b) == 8 {
				track.Scheme = string(b[4:8])
			}
		}
	case "tenc":
		if track != nil {
			if b, err := w.payload(h, 24); err == nil && len(b) == 24 {
				track.KID = uuidString(b[8:24])
			}
		}
	case "pssh":
		w.pssh(h)
	case "senc", "saiz", "saio":
		w.info.EncryptionBoxes++
	}
}

// stsd holds the sample entries: the entry type says the codec, or
// encv/enca for an encrypted one, whose sinf says what it protects.
func (w *mp4Walker) stsd(h boxHeader, depth int, track *mp4Track) {
	body, end := h.start+h.headerLen, h.start+h.size
	if end-body < 8 {
		return
	}
	for off := body + 8; off < end; { // version, flags, entry count
		if w.info.Boxes >= maxBoxes {
			w.info.Partial = true
			return
		}
		e, err := w.header(off, end)
		if err != nil {
			w.info.Partial = true
			return
		}
		w.info.Boxes++
		if track.Entry == "" {
			track.Entry = e.typ
		}
		switch e.typ {
		case "encv", "enca", "encs", "enct", "drms", "drmi": // drms/drmi: iTunes FairPlay
			track.Protected = true
		}
		if skip := w.sampleEntryHeader(e); skip > 0 {
			if e.headerLen+skip < e.size {
				w.children(e.start+e.headerLen+skip, e.start+e.size, depth+2, track)
			}
		}
		off += e.size
	}
}

// sampleEntryHeader is the length of a sample entry's own fields before its
// child boxes, 0 for entries whose children are not looked at.
func (w *mp4Walker) sampleEntryHeader(e boxHeader) int64 {
	switch e.typ {
	case "encv":
		return 78 // SampleEntry (8) + VisualSampleEntry (70)
	case "enca":
		// SampleEntry (8) + AudioSampleEntry (20), longer in QuickTime's
		// sound description versions 1 (+16) and 2 (+36).
		b, err := w.payload(e, 10)
		if err != nil || len(b) < 10 {
			return 0
		}
		switch binary.BigEndian.Uint16(b[8:10]) {
		case 1:
			return 28 + 16
		case 2:
			return 28 + 36
		}
		return 28
	case "encs", "enct":
		return 8
	}
	return 0
}

// stts reads the distinct sample durations of a track.
func (w *mp4Walker) stts(h boxHeader, t *mp4Track) {
	body, end := h.start+h.headerLen, h.start+h.size
	if end-body < 8 {
		return
	}
	var head [8]byte
	if _, err := w.r.ReadAt(head[:], body); err != nil {
		return
	}
	n := int64(binary.BigEndian.Uint32(head[4:8]))
	if n > (end-body-8)/8 || n > maxSttsEntries {
		return // declares more entries than the box holds, or too many to read
	}
	buf := make([]byte, n*8)
	if _, err := w.r.ReadAt(buf, body+8); err != nil {
		return
	}
	for i := int64(0); i < n; i++ {
		count := binary.BigEndian.Uint32(buf[i*8:])
		delta := binary.BigEndian.Uint32(buf[i*8+4:])
		if count == 0 {
			continue
		}
		t.lastDelta, t.lastDeltaOnce = delta, count == 1
		if !containsDelta(t.Deltas, delta) && len(t.Deltas) < 8 {
			t.Deltas = append(t.Deltas, delta)
		}
	}
	t.SttsRead = true
}

func containsDelta(ds []uint32, d uint32) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// FrameRateMode is "CFR" when every sample of the track lasts as long
// (the last may differ: encoders write its duration loosely), "VFR" when
// they differ, "" when unknown (no stts, or a fragmented file whose
// durations are in its fragments).
func (t *mp4Track) FrameRateMode() string {
	if !t.SttsRead || len(t.Deltas) == 0 {
		return ""
	}
	if len(t.Deltas) == 1 {
		return "CFR"
	}
	if len(t.Deltas) == 2 && t.lastDeltaOnce && t.Deltas[1] == t.lastDelta {
		return "CFR"
	}
	return "VFR"
}

// pssh reads a protection system specific header (ISO/IEC 23001-7).
func (w *mp4Walker) pssh(h boxHeader) {
	if len(w.info.PSSH) >= 32 {
		return
	}
	b, err := w.payload(h, maxPayload)
	if err != nil || len(b) < 24 {
		return
	}
	p := psshBox{SystemID: uuidString(b[4:20])}
	rest := b[20:]
	if b[0] >= 1 {
		if len(rest) < 4 {
			return
		}
		n := int(binary.BigEndian.Uint32(rest[:4]))
		rest = rest[4:]
		if n > len(rest)/16 {
			return
		}
		for i := 0; i < n && i < 16; i++ {
			p.KIDs = append(p.KIDs, uuidString(rest[i*16:i*16+16]))
		}
		rest = rest[n*16:]
	}
	if len(rest) >= 4 {
		p.DataSize = int(binary.BigEndian.Uint32(rest[:4]))
	}
	w.info.PSSH = append(w.info.PSSH, p)
}

// payload reads up to max bytes of a box's body.
func (w *mp4Walker) payload(h boxHeader, max int64) ([]byte, error) {
	n := min(h.size-h.headerLen, max)
	if n <= 0 {
		return nil, nil
	}
	b := make([]byte, n)
	if _, err := w.r.ReadAt(b, h.start+h.headerLen); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// uuidString writes 16 bytes as a lower-case UUID.
func uuidString(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// printable shows a box type in an error without control bytes.
func printable(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c < 0x20 || c > 0x7e {
			out[i] = '?'
		}
	}
	return string(out)
}
