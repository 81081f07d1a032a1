package archive

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// The zip reader walks the central directory record by record, keeping
// nothing but the listing (archive/zip would hold every record). Its
// layout is APPNOTE.TXT's: end of central directory (EOCD) at the end,
// with its zip64 variant when counts or offsets overflow 16/32 bits.
const (
	zipEOCDSig       = 0x06054b50
	zip64LocatorSig  = 0x07064b50
	zip64EOCDSig     = 0x06064b50
	zipDirSig        = 0x02014b50
	zipLocalSig      = 0x04034b50
	zipEOCDLen       = 22
	zip64LocatorLen  = 20
	zip64EOCDLen     = 56
	zipDirHeaderLen  = 46
	zipLocalLen      = 30
	zipMaxCommentLen = 65535
)

var errNotZip = errors.New("zip: no end of central directory")

// zipDir is where the central directory is.
type zipDir struct {
	records  uint64
	size     uint64
	offset   int64 // of the directory in the file
	base     int64 // added to offsets recorded in the archive (data prepended)
	eocdAt   int64
	comment  string
	override bool
}

func findZipDir(r io.ReaderAt, size int64) (*zipDir, error) {
	tail := min(size, zipEOCDLen+zipMaxCommentLen)
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("zip: read end: %w", err)
	}
	at := -1
	for i := len(buf) - zipEOCDLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) == zipEOCDSig &&
			i+zipEOCDLen+int(binary.LittleEndian.Uint16(buf[i+20:])) <= len(buf) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, errNotZip
	}
	e := buf[at:]
	d := &zipDir{
		records: uint64(binary.LittleEndian.Uint16(e[10:])),
		size:    uint64(binary.LittleEndian.Uint32(e[12:])),
		offset:  int64(binary.LittleEndian.Uint32(e[16:])),
		eocdAt:  size - tail + int64(at),
	}
	cl := int(binary.LittleEndian.Uint16(e[20:]))
	d.comment = string(e[zipEOCDLen : zipEOCDLen+cl])
	if d.records == 0xffff || d.size == 0xffffffff || d.offset == 0xffffffff {
		if err := readZip64(r, d); err != nil {
			return nil, err
		}
	}
	if d.offset < 0 || d.size > uint64(d.eocdAt) || d.offset > d.eocdAt {
		return nil, errors.New("zip: central directory outside the file")
	}
	// Data prepended to the archive (a self-extracting stub) moves every
	// offset: the directory ends where the EOCD begins.
	if want := d.eocdAt - int64(d.size); want != d.offset && !d.override {
		var sig [4]byte
		if _, err := r.ReadAt(sig[:], d.offset); err != nil || binary.LittleEndian.Uint32(sig[:]) != zipDirSig {
			d.base = want - d.offset
			d.offset = want
		}
	}
	return d, nil
}

func readZip64(r io.ReaderAt, d *zipDir) error {
	if d.eocdAt < zip64LocatorLen {
		return errors.New("zip: zip64 locator missing")
	}
	loc := make([]byte, zip64LocatorLen)
	if _, err := r.ReadAt(loc, d.eocdAt-zip64LocatorLen); err != nil {
		return fmt.Errorf("zip: zip64 locator: %w", err)
	}
	if binary.LittleEndian.Uint32(loc) != zip64LocatorSig {
		return errors.New("zip: zip64 locator missing")
	}
	at := int64(binary.LittleEndian.Uint64(loc[8:]))
	if at < 0 || at > d.eocdAt-zip64LocatorLen-zip64EOCDLen {
		return errors.New("zip: zip64 end record outside the file")
	}
	e := make([]byte, zip64EOCDLen)
	if _, err := r.ReadAt(e, at); err != nil {
		return fmt.Errorf("zip: zip64 end record: %w", err)
	}
	if binary.LittleEndian.Uint32(e) != zip64EOCDSig {
		return errors.New("zip: zip64 end record missing")
	}
	d.records = binary.LittleEndian.Uint64(e[32:])
	d.size = binary.LittleEndian.Uint64(e[40:])
	d.offset = int64(binary.LittleEndian.Uint64(e[48:]))
	// The directory ends where the zip64 end record begins.
	d.eocdAt = at
	d.override = d.offset >= 0 && uint64(d.offset)+d.size == uint64(at)
	return nil
}

// zipRecord is one central directory record, decoded.
type zipRecord struct {
	Entry
	method      uint16
	flags       uint16
	localOffset int64
}

// walkZip lists a zip archive from its central directory.
func walkZip(l *listing, sc scope, r io.ReaderAt, size int64) error {
	d, err := findZipDir(r, size)
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, d.offset, int64(min(d.size, uint64(size)))), 64<<10)
	var sumCompressed uint64
	ranges := newOverlapCheck()
	for n := uint64(0); n < d.records; n++ {
		rec, err := readZipRecord(br)
		if err != nil {
			if n == 0 && sc.depth == 0 && l.count == 0 {
				return err
			}
			return damaged(err)
		}
		rec.localOffset += d.base
		sumCompressed += uint64(max(rec.CompressedSize, 0))
		if rec.Type == "file" && rec.CompressedSize > 0 && ranges.overlaps(rec.localOffset, rec.CompressedSize) {
			return bomb("entries share compressed data (overlapping entries)")
		}
		unsafe, err := l.add(sc, rec.Entry)
		if err != nil {
			return err
		}
		if l.wantsText(rec.Entry, unsafe) {
			if b, err := readZipEntry(r, size, rec, MaxTextFile); err == nil {
				l.addText(b)
			}
		}
		if l.wantsNested(sc, rec.Entry, unsafe) {
			if b, err := readZipEntry(r, size, rec, MaxNestedSize); err == nil {
				if err := l.walkNested(rec.Name, b); err != nil {
					return err
				}
			}
		}
	}
	if sumCompressed > uint64(size) {
		return bomb("entries declare more compressed data than the file holds (overlapping entries)")
	}
	if l.totalSize > MaxDeclaredTotal {
		return bomb(fmt.Sprintf("entries declare %d bytes in all", l.totalSize))
	}
	return nil
}

// readZipRecord reads one central directory record.
func readZipRecord(br *bufio.Reader) (*zipRecord, error) {
	var h [zipDirHeaderLen]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return nil, fmt.Errorf("zip: central directory: %w", err)
	}
	if binary.LittleEndian.Uint32(h[:]) != zipDirSig {
		return nil, errors.New("zip: central directory record expected")
	}
	madeBy := binary.LittleEndian.Uint16(h[4:])
	rec := &zipRecord{flags: binary.LittleEndian.Uint16(h[8:]), method: binary.LittleEndian.Uint16(h[10:])}
	modTime, modDate := binary.LittleEndian.Uint16(h[12:]), binary.LittleEndian.Uint16(h[14:])
	csize, usize := uint64(binary.LittleEndian.Uint32(h[20:])), uint64(binary.LittleEndian.Uint32(h[24:]))
	nameLen, extraLen, commentLen := int(binary.LittleEndian.Uint16(h[28:])), int(binary.LittleEndian.Uint16(h[30:])), int(binary.LittleEndian.Uint16(h[32:]))
	external := binary.LittleEndian.Uint32(h[38:])
	offset := uint64(binary.LittleEndian.Uint32(h[42:]))
	vars := make([]byte, nameLen+extraLen+commentLen) // at most 192 KiB
	if _, err := io.ReadFull(br, vars); err != nil {
		return nil, fmt.Errorf("zip: central directory: %w", err)
	}
	rawName, extra := vars[:nameLen], vars[nameLen:nameLen+extraLen]

	var modified time.Time
	if modDate != 0 {
		modified = dosTime(modDate, modTime)
	}
	name := zipName(rawName, rec.flags&0x800 != 0)
	for len(extra) >= 4 {
		id, n := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		extra = extra[4:]
		if n > len(extra) {
			break
		}
		field := extra[:n]
		extra = extra[n:]
		switch id {
		case 0x0001: // zip64: the values that overflowed, in this order
			for _, v := range []*uint64{&usize, &csize, &offset} {
				if *v == 0xffffffff && len(field) >= 8 {
					*v = binary.LittleEndian.Uint64(field)
					field = field[8:]
				}
			}
		case 0x5455: // extended timestamp: flags, then modification time
			if len(field) >= 5 && field[0]&1 != 0 {
				modified = time.Unix(int64(int32(binary.LittleEndian.Uint32(field[1:]))), 0)
			}
		case 0x7075: // Info-ZIP Unicode path: version, CRC of the header name, UTF-8 name
			if len(field) >= 5 && field[0] == 1 && binary.LittleEndian.Uint32(field[1:]) == crc32.ChecksumIEEE(rawName) &&
				utf8.Valid(field[5:]) {
				name = string(field[5:])
			}
		}
	}
	rec.Name = name
	rec.Size = int64(min(usize, 1<<62))
	rec.CompressedSize = int64(min(csize, 1<<62))
	rec.localOffset = int64(min(offset, 1<<62))
	rec.Modified = modified
	rec.Encrypted = rec.flags&1 != 0
	rec.Mode, rec.Type = zipMode(madeBy>>8, external, name)
	return rec, nil
}

// zipName decodes a name: UTF-8 when flagged or valid, else the IBM PC
// code page the format defaults to.
func zipName(b []byte, utf8Flag bool) string {
	if utf8Flag || utf8.Valid(b) {
		return string(b)
	}
	s, err := charmap.CodePage437.NewDecoder().Bytes(b)
	if err != nil {
		return string(b)
	}
	return string(s)
}

// zipMode reads the Unix mode when the archive was made on Unix (host 3),
// the MS-DOS attributes otherwise.
func zipMode(host uint16, external uint32, name string) (fs.FileMode, string) {
	dirName := len(name) > 0 && (name[len(name)-1] == '/' || name[len(name)-1] == '\\')
	if host == 3 && external>>16 != 0 {
		unix := external >> 16
		perm := fs.FileMode(unix & 0o777)
		switch unix & 0o170000 {
		case 0o040000:
			return perm | fs.ModeDir, "dir"
		case 0o120000:
			return perm | fs.ModeSymlink, "symlink"
		case 0o020000:
			return perm | fs.ModeDevice | fs.ModeCharDevice, "device"
		case 0o060000:
			return perm | fs.ModeDevice, "device"
		case 0o010000:
			return perm | fs.ModeNamedPipe, "fifo"
		case 0o140000:
			return perm | fs.ModeSocket, "other"
		}
		if dirName {
			return perm | fs.ModeDir, "dir"
		}
		return perm, "file"
	}
	if external&0x10 != 0 || dirName {
		return 0o755 | fs.ModeDir, "dir"
	}
	if external&0x01 != 0 {
		return 0o444, "file"
	}
	return 0o644, "file"
}

// dosTime converts an MS-DOS date and time (local time of the maker,
// read as UTC).
func dosTime(d, t uint16) time.Time {
	return time.Date(int(d>>9)+1980, time.Month(d>>5&0xf), int(d&0x1f), int(t>>11), int(t>>5&0x3f), int(t&0x1f)*2, 0, time.UTC)
}

// readZipEntry decompresses a stored or deflated entry, at most limit
// bytes (more is an error): only small entries are ever read.
func readZipEntry(r io.ReaderAt, size int64, rec *zipRecord, limit int64) ([]byte, error) {
	if rec.Encrypted || rec.Size > limit || (rec.method != 0 && rec.method != 8) {
		return nil, errors.New("zip: entry not readable")
	}
	var h [zipLocalLen]byte
	if _, err := r.ReadAt(h[:], rec.localOffset); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(h[:]) != zipLocalSig {
		return nil, errors.New("zip: local header expected")
	}
	start := rec.localOffset + zipLocalLen + int64(binary.LittleEndian.Uint16(h[26:])) + int64(binary.LittleEndian.Uint16(h[28:]))
	if start > size || rec.CompressedSize > size-start {
		return nil, errors.New("zip: entry data outside the file")
	}
	var src io.Reader = io.NewSectionReader(r, start, rec.CompressedSize)
	if rec.method == 8 {
		fr := flate.NewReader(src)
		defer fr.Close()
		src = fr
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(src, limit+1)); err != nil {
		return nil, fmt.Errorf("zip: entry data: %w", err)
	}
	if int64(buf.Len()) > limit {
		return nil, errors.New("zip: entry larger than declared")
	}
	return buf.Bytes(), nil
}

// overlapCheck finds entries whose compressed data overlap, as in the
// zip bombs that point many entries at one deflate stream. It remembers a
// bounded number of ranges: enough for any honest archive read here.
type overlapCheck struct {
	starts map[int64]int64
}

func newOverlapCheck() *overlapCheck { return &overlapCheck{starts: map[int64]int64{}} }

func (o *overlapCheck) overlaps(start, n int64) bool {
	if _, dup := o.starts[start]; dup {
		return true
	}
	if len(o.starts) < MaxListed {
		o.starts[start] = n
	}
	return false
}

// damaged marks an error met after part of an archive was read.
func damaged(err error) error { return &damageError{err} }

type damageError struct{ err error }

func (e *damageError) Error() string { return e.err.Error() }
func (e *damageError) Unwrap() error { return e.err }
