package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"
	"unicode/utf16"

	"github.com/ulikunitz/xz/lzma"
)

// The 7z reader reads the archive header (7-Zip's DOC/7zFormat.txt) with
// every count checked against the bytes that must back it before anything
// is allocated for it, and lists the files from it; no file data is
// decompressed. An encoded (compressed) header is decompressed first, when
// it is LZMA, LZMA2 or stored, within maxHeaderBytes and maxXZDict.
const (
	sevenZSigLen   = 32
	maxHeaderBytes = 32 << 20
	maxHeaderDepth = 4
	maxCoders      = 64
)

var sevenZMagic = []byte{'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}

// Property ids of the header.
const (
	id7End             = 0x00
	id7Header          = 0x01
	id7ArchiveProps    = 0x02
	id7AdditionalInfo  = 0x03
	id7MainStreamsInfo = 0x04
	id7FilesInfo       = 0x05
	id7PackInfo        = 0x06
	id7UnpackInfo      = 0x07
	id7SubStreamsInfo  = 0x08
	id7Size            = 0x09
	id7CRC             = 0x0a
	id7Folder          = 0x0b
	id7CodersUnpack    = 0x0c
	id7NumUnpackStream = 0x0d
	id7EmptyStream     = 0x0e
	id7EmptyFile       = 0x0f
	id7Name            = 0x11
	id7MTime           = 0x14
	id7WinAttributes   = 0x15
	id7EncodedHeader   = 0x17
	id7Dummy           = 0x19
)

var errBad7z = errors.New("7z: malformed header")

// hreader reads header bytes, failing on any read past the end.
type hreader struct {
	b   []byte
	off int
}

func (h *hreader) left() int { return len(h.b) - h.off }

func (h *hreader) byte() (byte, error) {
	if h.off >= len(h.b) {
		return 0, errBad7z
	}
	h.off++
	return h.b[h.off-1], nil
}

func (h *hreader) bytes(n uint64) ([]byte, error) {
	if n > uint64(h.left()) {
		return nil, errBad7z
	}
	s := h.b[h.off : h.off+int(n)]
	h.off += int(n)
	return s, nil
}

// number reads 7z's variable-length NUMBER.
func (h *hreader) number() (uint64, error) {
	first, err := h.byte()
	if err != nil {
		return 0, err
	}
	var v uint64
	mask := byte(0x80)
	for i := 0; i < 8; i++ {
		if first&mask == 0 {
			return v | uint64(first&(mask-1))<<(8*i), nil
		}
		b, err := h.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b) << (8 * i)
		mask >>= 1
	}
	return v, nil
}

// count reads a NUMBER that counts items each backed by at least one bit
// of the rest of the header (or by one byte when perByte), so that no
// count allocates more than the header's size justifies.
func (h *hreader) count(perByte bool) (int, error) {
	n, err := h.number()
	if err != nil {
		return 0, err
	}
	limit := uint64(h.left())*8 + 8
	if perByte {
		limit = uint64(h.left()) + 1
	}
	if n > limit || n > MaxEntries {
		return 0, fmt.Errorf("7z: header declares %d items in %d bytes", n, h.left())
	}
	return int(n), nil
}

func (h *hreader) bits(n int) ([]bool, error) {
	raw, err := h.bytes(uint64((n + 7) / 8))
	if err != nil {
		return nil, err
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = raw[i/8]&(0x80>>(i%8)) != 0
	}
	return out, nil
}

// optionalBits reads "all defined" or a bit field.
func (h *hreader) optionalBits(n int) ([]bool, error) {
	all, err := h.byte()
	if err != nil {
		return nil, err
	}
	if all == 0 {
		return h.bits(n)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out, nil
}

func (h *hreader) skipDigests(n int) error {
	defined, err := h.optionalBits(n)
	if err != nil {
		return err
	}
	for _, d := range defined {
		if d {
			if _, err := h.bytes(4); err != nil {
				return err
			}
		}
	}
	return nil
}

// folder is a coder chain; only what the listing and the header decoding
// need is kept.
type folder struct {
	coders     []coder
	outStreams int
	unpack     []uint64
	bound      []bool // out streams bound to another coder's input
}

type coder struct {
	id    []byte
	props []byte
}

// finalSize is the folder's unpacked size: its one unbound out stream.
func (f *folder) finalSize() uint64 {
	for i, b := range f.bound {
		if !b && i < len(f.unpack) {
			return f.unpack[i]
		}
	}
	return 0
}

type streamsInfo struct {
	packPos   uint64
	packSizes []uint64
	folders   []*folder
	// subSizes are the unpacked sizes of the files with data, in order.
	subSizes []uint64
}

func (h *hreader) streamsInfo() (*streamsInfo, error) {
	si := &streamsInfo{}
	var perFolder []int
	for {
		id, err := h.byte()
		if err != nil {
			return nil, err
		}
		switch id {
		case id7End:
			if perFolder != nil && len(perFolder) != len(si.folders) {
				return nil, errBad7z
			}
			if si.subSizes == nil {
				for i, f := range si.folders {
					n := 1
					if perFolder != nil {
						n = perFolder[i]
					}
					if n == 1 {
						si.subSizes = append(si.subSizes, f.finalSize())
					}
				}
			}
			return si, nil
		case id7PackInfo:
			if err := h.packInfo(si); err != nil {
				return nil, err
			}
		case id7UnpackInfo:
			if si.folders != nil || perFolder != nil {
				return nil, errBad7z
			}
			if err := h.unpackInfo(si); err != nil {
				return nil, err
			}
		case id7SubStreamsInfo:
			if perFolder, err = h.subStreamsInfo(si); err != nil {
				return nil, err
			}
		default:
			return nil, errBad7z
		}
	}
}

func (h *hreader) packInfo(si *streamsInfo) error {
	var err error
	if si.packPos, err = h.number(); err != nil {
		return err
	}
	n, err := h.count(true)
	if err != nil {
		return err
	}
	for {
		id, err := h.byte()
		if err != nil {
			return err
		}
		switch id {
		case id7End:
			return nil
		case id7Size:
			si.packSizes = make([]uint64, n)
			for i := range si.packSizes {
				if si.packSizes[i], err = h.number(); err != nil {
					return err
				}
			}
		case id7CRC:
			if err := h.skipDigests(n); err != nil {
				return err
			}
		default:
			return errBad7z
		}
	}
}

func (h *hreader) unpackInfo(si *streamsInfo) error {
	if id, err := h.byte(); err != nil || id != id7Folder {
		return errBad7z
	}
	n, err := h.count(true)
	if err != nil {
		return err
	}
	if ext, err := h.byte(); err != nil || ext != 0 {
		return errors.New("7z: external folders not supported")
	}
	si.folders = make([]*folder, 0, n)
	for range n {
		f, err := h.folder()
		if err != nil {
			return err
		}
		si.folders = append(si.folders, f)
	}
	if id, err := h.byte(); err != nil || id != id7CodersUnpack {
		return errBad7z
	}
	for _, f := range si.folders {
		f.unpack = make([]uint64, f.outStreams)
		for i := range f.unpack {
			if f.unpack[i], err = h.number(); err != nil {
				return err
			}
		}
	}
	for {
		id, err := h.byte()
		if err != nil {
			return err
		}
		switch id {
		case id7End:
			return nil
		case id7CRC:
			if err := h.skipDigests(len(si.folders)); err != nil {
				return err
			}
		default:
			return errBad7z
		}
	}
}

func (h *hreader) folder() (*folder, error) {
	n, err := h.count(true)
	if err != nil {
		return nil, err
	}
	if n == 0 || n > maxCoders {
		return nil, errBad7z
	}
	f := &folder{}
	inStreams := 0
	for range n {
		flags, err := h.byte()
		if err != nil {
			return nil, err
		}
		if flags&0x80 != 0 {
			return nil, errors.New("7z: alternative coder methods not supported")
		}
		id, err := h.bytes(uint64(flags & 0x0f))
		if err != nil {
			return nil, err
		}
		c := coder{id: id}
		in, out := uint64(1), uint64(1)
		if flags&0x10 != 0 {
			if in, err = h.number(); err != nil {
				return nil, err
			}
			if out, err = h.number(); err != nil {
				return nil, err
			}
			if in > maxCoders || out > maxCoders {
				return nil, errBad7z
			}
		}
		if flags&0x20 != 0 {
			size, err := h.number()
			if err != nil {
				return nil, err
			}
			if c.props, err = h.bytes(size); err != nil {
				return nil, err
			}
		}
		inStreams += int(in)
		f.outStreams += int(out)
		f.coders = append(f.coders, c)
	}
	if f.outStreams == 0 || f.outStreams > maxCoders*maxCoders {
		return nil, errBad7z
	}
	f.bound = make([]bool, f.outStreams)
	for range f.outStreams - 1 {
		if _, err := h.number(); err != nil { // in index
			return nil, err
		}
		out, err := h.number()
		if err != nil {
			return nil, err
		}
		if out >= uint64(f.outStreams) {
			return nil, errBad7z
		}
		f.bound[out] = true
	}
	packed := inStreams - (f.outStreams - 1)
	if packed < 1 {
		return nil, errBad7z
	}
	if packed > 1 {
		for range packed {
			if _, err := h.number(); err != nil {
				return nil, err
			}
		}
	}
	return f, nil
}

func (h *hreader) subStreamsInfo(si *streamsInfo) ([]int, error) {
	perFolder := make([]int, len(si.folders))
	for i := range perFolder {
		perFolder[i] = 1
	}
	id, err := h.byte()
	if err != nil {
		return nil, err
	}
	total := len(si.folders)
	if id == id7NumUnpackStream {
		total = 0
		for i := range perFolder {
			n, err := h.count(false)
			if err != nil {
				return nil, err
			}
			perFolder[i] = n
			total += n
			if total > MaxEntries {
				return nil, fmt.Errorf("7z: more than %d streams", MaxEntries)
			}
		}
		if id, err = h.byte(); err != nil {
			return nil, err
		}
	}
	// Sizes: all but the last of each folder are written; the last is the
	// rest of the folder.
	sizes := make([]uint64, 0, min(total, 4096))
	for i, f := range si.folders {
		if perFolder[i] == 0 {
			continue
		}
		var sum uint64
		for range perFolder[i] - 1 {
			if id != id7Size {
				return nil, errBad7z
			}
			s, err := h.number()
			if err != nil {
				return nil, err
			}
			sizes = append(sizes, s)
			sum += s
		}
		final := f.finalSize()
		if sum > final {
			return nil, errBad7z
		}
		sizes = append(sizes, final-sum)
	}
	si.subSizes = sizes
	if id == id7Size {
		if id, err = h.byte(); err != nil {
			return nil, err
		}
	}
	if id == id7CRC {
		// Digests of the streams whose CRC the folder did not give:
		// counted loosely; they are skipped.
		if err := h.skipDigests(total); err != nil {
			return nil, err
		}
		if id, err = h.byte(); err != nil {
			return nil, err
		}
	}
	if id != id7End {
		return nil, errBad7z
	}
	return perFolder, nil
}

// sevenZFile is what the listing takes from the files info.
type sevenZFile struct {
	name     string
	empty    bool // no data stream: a directory or an empty file
	emptyDir bool // an empty stream that is not an empty file
	attrib   uint32
	hasAttr  bool
	mtime    time.Time
}

func (h *hreader) filesInfo() ([]sevenZFile, error) {
	n, err := h.count(false)
	if err != nil {
		return nil, err
	}
	files := make([]sevenZFile, n)
	var emptyStreams []int
	for {
		prop, err := h.byte()
		if err != nil {
			return nil, err
		}
		if prop == id7End {
			return files, nil
		}
		size, err := h.number()
		if err != nil {
			return nil, err
		}
		raw, err := h.bytes(size)
		if err != nil {
			return nil, err
		}
		p := &hreader{b: raw}
		switch prop {
		case id7EmptyStream:
			bits, err := p.bits(n)
			if err != nil {
				return nil, err
			}
			emptyStreams = emptyStreams[:0]
			for i, b := range bits {
				files[i].empty, files[i].emptyDir = b, b
				if b {
					emptyStreams = append(emptyStreams, i)
				}
			}
		case id7EmptyFile:
			bits, err := p.bits(len(emptyStreams))
			if err != nil {
				return nil, err
			}
			for j, b := range bits {
				if b {
					files[emptyStreams[j]].emptyDir = false
				}
			}
		case id7Name:
			if ext, err := p.byte(); err != nil || ext != 0 {
				return nil, errors.New("7z: external names not supported")
			}
			if err := readNames(p.b[p.off:], files); err != nil {
				return nil, err
			}
		case id7MTime:
			defined, err := p.optionalBits(n)
			if err != nil {
				return nil, err
			}
			if ext, err := p.byte(); err != nil || ext != 0 {
				return nil, errors.New("7z: external times not supported")
			}
			for i, d := range defined {
				if !d {
					continue
				}
				b, err := p.bytes(8)
				if err != nil {
					return nil, err
				}
				files[i].mtime = filetime(binary.LittleEndian.Uint64(b))
			}
		case id7WinAttributes:
			defined, err := p.optionalBits(n)
			if err != nil {
				return nil, err
			}
			if ext, err := p.byte(); err != nil || ext != 0 {
				return nil, errors.New("7z: external attributes not supported")
			}
			for i, d := range defined {
				if !d {
					continue
				}
				b, err := p.bytes(4)
				if err != nil {
					return nil, err
				}
				files[i].attrib, files[i].hasAttr = binary.LittleEndian.Uint32(b), true
			}
		}
	}
}

// readNames reads NUL-terminated UTF-16LE names, one per file.
func readNames(b []byte, files []sevenZFile) error {
	if len(b)%2 != 0 {
		return errBad7z
	}
	i := 0
	var cur []uint16
	for j := 0; j+1 < len(b); j += 2 {
		u := binary.LittleEndian.Uint16(b[j:])
		if u != 0 {
			if len(cur) < maxNameBytes {
				cur = append(cur, u)
			}
			continue
		}
		if i >= len(files) {
			return errBad7z
		}
		files[i].name = string(utf16.Decode(cur))
		cur = cur[:0]
		i++
	}
	if i != len(files) {
		return errors.New("7z: names do not match the files")
	}
	return nil
}

// filetime converts a Windows FILETIME (100 ns since 1601).
func filetime(v uint64) time.Time {
	const epochDiff = 116444736000000000
	if v < epochDiff {
		return time.Time{}
	}
	return time.Unix(0, 0).Add(time.Duration((v-epochDiff)/10000000) * time.Second).UTC()
}

// walk7z lists a 7z archive from its header.
func walk7z(l *listing, sc scope, r io.ReaderAt, size int64) error {
	sig := make([]byte, sevenZSigLen)
	if _, err := r.ReadAt(sig, 0); err != nil || !bytes.Equal(sig[:6], sevenZMagic) {
		return errors.New("7z: no signature")
	}
	next := binary.LittleEndian.Uint64(sig[12:])
	n := binary.LittleEndian.Uint64(sig[20:])
	if n == 0 {
		return nil // an empty archive
	}
	if next > uint64(size) || n > uint64(size)-next || sevenZSigLen+next+n > uint64(size) {
		return errors.New("7z: header outside the file")
	}
	if n > maxHeaderBytes {
		return fmt.Errorf("7z: header of %d bytes, more than %d", n, maxHeaderBytes)
	}
	raw := make([]byte, n)
	if _, err := r.ReadAt(raw, int64(sevenZSigLen+next)); err != nil {
		return fmt.Errorf("7z: header: %w", err)
	}
	for depth := 0; ; depth++ {
		h := &hreader{b: raw}
		id, err := h.byte()
		if err != nil {
			return err
		}
		switch id {
		case id7Header:
			return l.list7z(sc, h)
		case id7EncodedHeader:
			if depth >= maxHeaderDepth {
				return errBad7z
			}
			si, err := h.streamsInfo()
			if err != nil {
				return err
			}
			if raw, err = decodeHeader(r, size, si); err != nil {
				return err
			}
		default:
			return errBad7z
		}
	}
}

// decodeHeader decompresses an encoded header: one folder of one coder,
// LZMA, LZMA2 or copy.
func decodeHeader(r io.ReaderAt, size int64, si *streamsInfo) ([]byte, error) {
	if len(si.folders) != 1 || len(si.packSizes) < 1 || len(si.folders[0].coders) != 1 {
		return nil, errors.New("7z: encoded header of an unsupported layout")
	}
	f := si.folders[0]
	out := f.finalSize()
	pos, packed := si.packPos+sevenZSigLen, si.packSizes[0]
	if out > maxHeaderBytes {
		return nil, fmt.Errorf("7z: header of %d bytes, more than %d", out, maxHeaderBytes)
	}
	if pos > uint64(size) || packed > uint64(size)-pos {
		return nil, errors.New("7z: header data outside the file")
	}
	src := io.NewSectionReader(r, int64(pos), int64(packed))
	c := f.coders[0]
	var dec io.Reader
	switch {
	case bytes.Equal(c.id, []byte{0}):
		dec = src
	case bytes.Equal(c.id, []byte{3, 1, 1}): // LZMA: 5 property bytes, then the classic header's size
		if len(c.props) != 5 {
			return nil, errBad7z
		}
		var hdr [13]byte
		copy(hdr[:], c.props)
		binary.LittleEndian.PutUint64(hdr[5:], out)
		lr, err := lzma.ReaderConfig{DictCap: maxXZDict}.NewReader(io.MultiReader(bytes.NewReader(hdr[:]), src))
		if err != nil {
			return nil, fmt.Errorf("7z: header: %w", err)
		}
		dec = lr
	case bytes.Equal(c.id, []byte{0x21}): // LZMA2: one dictionary byte
		if len(c.props) != 1 || c.props[0] > 40 || lzma2Dict(c.props[0]) > maxXZDict {
			return nil, errors.New("7z: header dictionary too large")
		}
		lr, err := lzma.Reader2Config{DictCap: int(max(lzma2Dict(c.props[0]), lzma.MinDictCap))}.NewReader2(src)
		if err != nil {
			return nil, fmt.Errorf("7z: header: %w", err)
		}
		dec = lr
	case bytes.Equal(c.id, []byte{6, 0xf1, 7, 1}):
		return nil, errors.New("7z: header encrypted (a password is needed to list it)")
	default:
		return nil, fmt.Errorf("7z: header compressed with unsupported method %x", c.id)
	}
	b := make([]byte, out)
	if _, err := io.ReadFull(dec, b); err != nil {
		return nil, fmt.Errorf("7z: header: %w", err)
	}
	return b, nil
}

// list7z reads the plain header and lists its files.
func (l *listing) list7z(sc scope, h *hreader) error {
	var main *streamsInfo
	var files []sevenZFile
	for {
		id, err := h.byte()
		if err != nil {
			return err
		}
		switch id {
		case id7End:
			return l.add7z(sc, main, files)
		case id7ArchiveProps:
			for {
				t, err := h.byte()
				if err != nil {
					return err
				}
				if t == 0 {
					break
				}
				n, err := h.number()
				if err != nil {
					return err
				}
				if _, err := h.bytes(n); err != nil {
					return err
				}
			}
		case id7AdditionalInfo:
			if _, err := h.streamsInfo(); err != nil {
				return err
			}
		case id7MainStreamsInfo:
			if main, err = h.streamsInfo(); err != nil {
				return err
			}
		case id7FilesInfo:
			if files, err = h.filesInfo(); err != nil {
				return err
			}
		default:
			return errBad7z
		}
	}
}

func (l *listing) add7z(sc scope, main *streamsInfo, files []sevenZFile) error {
	var sizes []uint64
	encrypted := false
	if main != nil {
		sizes = main.subSizes
		for _, f := range main.folders {
			for _, c := range f.coders {
				if bytes.Equal(c.id, []byte{6, 0xf1, 7, 1}) {
					encrypted = true
				}
			}
		}
	}
	next := 0
	for _, f := range files {
		e := Entry{Name: f.name, CompressedSize: -1, Modified: f.mtime, Type: "file", Mode: 0o644}
		if !f.empty {
			if next >= len(sizes) {
				return damaged(errors.New("7z: more files than streams"))
			}
			e.Size = int64(min(sizes[next], 1<<62))
			next++
		}
		dir := f.emptyDir || (f.hasAttr && f.attrib&0x10 != 0)
		if dir {
			e.Type, e.Mode = "dir", 0o755|fs.ModeDir
		}
		if f.hasAttr && f.attrib&0x8000 != 0 { // Unix mode in the high 16 bits
			mode, typ := zipMode(3, f.attrib, f.name)
			if !dir || typ == "dir" {
				e.Mode, e.Type = mode, typ
			}
		}
		if encrypted && !f.empty {
			e.Encrypted = true
		}
		if _, err := l.add(sc, e); err != nil {
			return err
		}
	}
	if l.totalSize > MaxDeclaredTotal {
		return bomb(fmt.Sprintf("entries declare %d bytes in all", l.totalSize))
	}
	return nil
}
