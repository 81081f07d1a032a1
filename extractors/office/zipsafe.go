package office

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Caps on what an office file may make the extractor read.
const (
	maxEntries    = 10000
	maxEntryBytes = 64 << 20
	maxTotalBytes = 256 << 20
	maxRatio      = 200
	ratioFloor    = 1 << 20 // entries smaller than this are not ratio-checked
)

// errNotZip is the error of a file that is no zip archive at all.
var errNotZip = errors.New("not an office document: not a zip archive")

// errTruncatedZip is the error of a zip whose end is missing: it starts
// as one, but its directory, written last, is not there (a file cut short
// by a copy or a download).
var errTruncatedZip = errors.New("truncated or damaged: the file starts as a zip archive but its directory (at the end) is missing")

// zipEntryCount reads the number of entries from the end of central
// directory record (or its zip64 form) without parsing the directory, so
// that an archive of a million entries is refused before archive/zip
// allocates one record per entry.
func zipEntryCount(r io.ReaderAt, size int64) (uint64, error) {
	const eocdLen = 22
	if size < eocdLen {
		return 0, errNotZip
	}
	tail := int64(eocdLen + 65535) // the record plus the longest comment
	if tail > size {
		tail = size
	}
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("read zip directory: %w", err)
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < eocdLen {
		if head := make([]byte, 4); size >= 4 {
			if _, err := r.ReadAt(head, 0); err == nil && bytes.Equal(head, []byte("PK\x03\x04")) {
				return 0, errTruncatedZip
			}
		}
		return 0, errNotZip
	}
	eocd := buf[i:]
	count := uint64(binary.LittleEndian.Uint16(eocd[10:12]))
	if count != 0xFFFF && binary.LittleEndian.Uint32(eocd[16:20]) != 0xFFFFFFFF {
		return count, nil
	}
	// zip64: the locator is the 20 bytes before the record.
	loc := int64(i) - 20
	if loc < 0 || !bytes.Equal(buf[loc:loc+4], []byte("PK\x06\x07")) {
		return count, nil
	}
	off := binary.LittleEndian.Uint64(buf[loc+8 : loc+16])
	if off > uint64(size)-56 || uint64(size) < 56 {
		return 0, errNotZip
	}
	rec := make([]byte, 56)
	if _, err := r.ReadAt(rec, int64(off)); err != nil {
		return 0, fmt.Errorf("read zip64 directory: %w", err)
	}
	if !bytes.Equal(rec[:4], []byte("PK\x06\x06")) {
		return 0, errNotZip
	}
	return binary.LittleEndian.Uint64(rec[32:40]), nil
}

// archive is an office file's zip with the caps above.
type archive struct {
	zr     *zip.Reader
	byName map[string]*zip.File // lower-case names: OPC part names ignore case
	budget int64                // decompressed bytes left to read
}

func openArchive(r io.ReaderAt, size int64) (*archive, error) {
	n, err := zipEntryCount(r, size)
	if err != nil {
		return nil, err
	}
	if n > maxEntries {
		return nil, fmt.Errorf("zip bomb: %d entries, at most %d", n, maxEntries)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not an office document: %w", err)
	}
	if len(zr.File) > maxEntries {
		return nil, fmt.Errorf("zip bomb: %d entries, at most %d", len(zr.File), maxEntries)
	}
	a := &archive{zr: zr, byName: make(map[string]*zip.File, len(zr.File)), budget: maxTotalBytes}
	for _, f := range zr.File {
		name := strings.ToLower(strings.TrimPrefix(f.Name, "/"))
		if _, dup := a.byName[name]; !dup {
			a.byName[name] = f
		}
	}
	return a, nil
}

// has reports whether the archive holds the named entry.
func (a *archive) has(name string) bool {
	_, ok := a.byName[strings.ToLower(strings.TrimPrefix(name, "/"))]
	return ok
}

// open opens an entry for reading, refusing one whose declared size or
// compression ratio is out of bounds; reads beyond its declared size fail
// (archive/zip) and so do reads beyond the archive's budget.
func (a *archive) open(name string) (io.ReadCloser, error) {
	f, ok := a.byName[strings.ToLower(strings.TrimPrefix(name, "/"))]
	if !ok {
		return nil, fmt.Errorf("no part %s: %w", name, errMissing)
	}
	size := f.UncompressedSize64
	if size > ratioFloor && (f.CompressedSize64 == 0 || size/f.CompressedSize64 > maxRatio) {
		return nil, fmt.Errorf("zip bomb: part %s expands %d bytes into %d", f.Name, f.CompressedSize64, size)
	}
	if size > maxEntryBytes {
		return nil, fmt.Errorf("document too large: part %s of %d bytes, over the %d MiB this extractor parses", f.Name, size, maxEntryBytes>>20)
	}
	if int64(size) > a.budget {
		return nil, fmt.Errorf("document too large: more than the %d MiB this extractor decompresses", maxTotalBytes>>20)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("open part %s: %w", f.Name, err)
	}
	return &budgeted{rc: rc, a: a, left: int64(size) + 1}, nil
}

var errMissing = errors.New("part missing")

// budgeted counts what is read against the archive's budget and the
// entry's declared size.
type budgeted struct {
	rc   io.ReadCloser
	a    *archive
	left int64
}

func (b *budgeted) Read(p []byte) (int, error) {
	if b.a.budget <= 0 {
		return 0, fmt.Errorf("document too large: more than the %d MiB this extractor decompresses", maxTotalBytes>>20)
	}
	if b.left <= 0 {
		return 0, errors.New("zip: part longer than declared")
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.a.budget -= int64(n)
	b.left -= int64(n)
	return n, err
}

func (b *budgeted) Close() error { return b.rc.Close() }

// readSmall reads a whole small entry (a mimetype file, a relationships
// part) of at most max bytes.
func (a *archive) readSmall(name string, max int64) ([]byte, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, fmt.Errorf("read part %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("part %s over %d bytes", name, max)
	}
	return b, nil
}
