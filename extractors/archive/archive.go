package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// Name is the extractor's API name.
const Name = "archive"

// Fields are what archive writes in Data.
var Fields = []extractors.Field{
	{Path: "format", Type: extractors.TypeString, Doc: "zip, tar, tar.gz, tar.bz2, tar.xz, tar.zst, gzip, bzip2, xz, zstd or 7z"},
	{Path: "entry_count", Type: extractors.TypeNumber, Doc: "entries walked (nested archives' included), listed or not"},
	{Path: "listed", Type: extractors.TypeNumber, Doc: "entries in the entries list (at most 10,000)"},
	{Path: "files", Type: extractors.TypeNumber, Doc: "regular files among the entries walked"},
	{Path: "directories", Type: extractors.TypeNumber, Doc: "directories among the entries walked"},
	{Path: "links", Type: extractors.TypeNumber, Doc: "symbolic and hard links among the entries walked"},
	{Path: "total_size", Type: extractors.TypeNumber, Doc: "bytes of the entries walked, uncompressed (as their headers declare for zip, 7z and tar)"},
	{Path: "compressed_size", Type: extractors.TypeNumber, Doc: "bytes of the archive file"},
	{Path: "ratio", Type: extractors.TypeNumber, Doc: "total_size / compressed_size"},
	{Path: "truncated", Type: extractors.TypeBool, Doc: "the list or the walk is not the whole archive"},
	{Path: "stopped_by", Type: extractors.TypeString, Doc: "why the walk stopped early: entries, bytes, time_limit or damaged"},
	{Path: "damage", Type: extractors.TypeString, Doc: "what was wrong where a damaged archive stopped being readable"},
	{Path: "unsafe_entries", Type: extractors.TypeNumber, Doc: "entries listed but never read: symbolic and hard links, devices, FIFOs"},
	{Path: "encrypted", Type: extractors.TypeBool, Doc: "some entries are encrypted"},
	{Path: "nested_archives", Type: extractors.TypeNumber, Doc: "archives inside the archive that were listed (one level deep)"},
	{Path: "nested_errors", Type: extractors.TypeNumber, Doc: "archives inside the archive that could not be listed"},
	{Path: "text_files", Type: extractors.TypeNumber, Doc: "small inner text documents whose text is in text"},
	{Path: "text", Type: extractors.TypeText, Doc: "text of the small inner text documents (.txt, .md, .csv, .tsv, .log, .rst; at most 64 KiB each, 1 MiB in all)"},
	{Path: "entries.name", Type: extractors.TypeString, Doc: "entry name as stored (at most 1024 bytes)"},
	{Path: "entries.size", Type: extractors.TypeNumber, Doc: "bytes, uncompressed"},
	{Path: "entries.compressed_size", Type: extractors.TypeNumber, Doc: "bytes stored (zip, gzip, bzip2, xz, zstd)"},
	{Path: "entries.ratio", Type: extractors.TypeNumber, Doc: "size / compressed_size"},
	{Path: "entries.type", Type: extractors.TypeString, Doc: "file, dir, symlink, hardlink, device, fifo or other"},
	{Path: "entries.mode", Type: extractors.TypeString, Doc: "Unix-style mode (-rw-r--r--, drwxr-xr-x, Lrwxrwxrwx)"},
	{Path: "entries.modified", Type: extractors.TypeDate, Doc: "modification time"},
	{Path: "entries.link", Type: extractors.TypeString, Doc: "link target of a link entry"},
	{Path: "entries.encrypted", Type: extractors.TypeBool, Doc: "the entry is encrypted"},
	{Path: "entries.unsafe", Type: extractors.TypeBool, Doc: "the entry is never read"},
	{Path: "entries.unsafe_reason", Type: extractors.TypeString, Doc: "link or special file"},
	{Path: "entries.archive", Type: extractors.TypeString, Doc: "the nested archive the entry is in (absent for the archive's own entries)"},
	{Path: "unsafe.name", Type: extractors.TypeString, Doc: "an entry never read (the first 100)"},
	{Path: "unsafe.reason", Type: extractors.TypeString, Doc: "why it is not read"},
	{Path: "unsafe.archive", Type: extractors.TypeString, Doc: "the nested archive it is in"},
}

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           Name,
		DisplayName:    "Archive Contents",
		Family:         extractors.FamilyTechnical,
		Version:        "1.0.0",
		Implemented:    true,
		RangeReads:     true,
		DefaultEnabled: true,
		Accept: extractors.AcceptMIME([]string{"application/zip", "application/x-tar", "application/gzip",
			"application/x-gzip", "application/x-bzip2", "application/x-xz", "application/x-7z-compressed", "application/zstd"},
			"zip", "tar", "gz", "tgz", "bz2", "tbz2", "tbz", "xz", "txz", "zst", "tzst", "7z"),
		Fields: Fields,
		New:    func(extractors.Env) (extractors.Extractor, error) { return extractor{}, nil },
	})
}

type extractor struct{}

var _ extractors.Extractor = extractor{}

// Extract implements extractors.Extractor. A file that is none of the
// formats is extractors.ErrUnsupported; a hostile archive (a bomb, an
// entry escaping the extraction directory) is a deterministic error, and
// nothing of its listing is kept.
func (extractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	src, err := doctext.OpenAt(in)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	l := &listing{ctx: ctx, archiveSize: src.Size, maxEntries: MaxEntries}
	if deadline, ok := ctx.Deadline(); ok {
		l.stopAt = stopBefore(deadline, time.Now())
	}
	if err := walk(l, scope{}, in.Name, src, src.Size); err != nil {
		return nil, err
	}
	return &extractors.Result{Data: l.data()}, nil
}

// stopBefore is when a walk that must end by deadline stops, keeping its
// listing.
func stopBefore(deadline, now time.Time) time.Time {
	left := deadline.Sub(now)
	return deadline.Add(-min(max(left/10, time.Second), 30*time.Second))
}

// walk lists the archive r and sorts out how the walk ended: a cap or a
// damage after some entries keeps the listing; damage before any entry,
// not an archive at all, or a hostile archive is an error.
func walk(l *listing, sc scope, name string, r io.ReaderAt, size int64) error {
	format, err := detect(r, size, name)
	if err != nil {
		return err
	}
	l.format = string(format)
	err = walkFormat(l, sc, format, name, r, size)
	var stop *stopError
	var dmg *damageError
	var hostile *hostileError
	switch {
	case err == nil:
	case l.ctx.Err() != nil:
		return fmt.Errorf("list %s: %w", format, l.ctx.Err())
	case errors.As(err, &hostile):
		return fmt.Errorf("list %s: %w", format, err)
	case errors.As(err, &stop):
		l.stoppedBy = stop.reason
	case errors.As(err, &dmg) && l.count > 0:
		l.stoppedBy, l.damage = stopDamaged, cleanName(dmg.Error())
	default:
		return fmt.Errorf("list %s: %w", format, err)
	}
	if l.totalSize > RatioFloor && l.totalSize > MaxRatio*max(size, 1) {
		return bomb(fmt.Sprintf("entries declare %d bytes from a file of %d", l.totalSize, size))
	}
	return nil
}

// walkBytes lists a nested archive held in memory.
func walkBytes(l *listing, sc scope, name string, data []byte) error {
	r := bytes.NewReader(data)
	format, err := detect(r, int64(len(data)), name)
	if err != nil {
		return err
	}
	return walkFormat(l, sc, format, name, r, int64(len(data)))
}

type format string

const (
	formatZip  format = "zip"
	formatTar  format = "tar"
	format7z   format = "7z"
	formatGzip format = "gzip"
	formatBz2  format = "bzip2"
	formatXZ   format = "xz"
	formatZstd format = "zstd"
)

func walkFormat(l *listing, sc scope, f format, name string, r io.ReaderAt, size int64) error {
	switch f {
	case formatZip:
		return walkZip(l, sc, r, size)
	case format7z:
		return walk7z(l, sc, r, size)
	case formatTar:
		// A SectionReader seeks: entries' data is skipped, not read.
		return walkTar(l, sc, io.NewSectionReader(r, 0, size))
	case formatGzip:
		return walkStream(l, sc, gz, r, size, name)
	case formatBz2:
		return walkStream(l, sc, bz2, r, size, name)
	case formatXZ:
		return walkStream(l, sc, xzc, r, size, name)
	case formatZstd:
		return walkStream(l, sc, zstc, r, size, name)
	}
	return extractors.ErrUnsupported
}

// detect tells the format by its magic number; a zip is also found by its
// end record (a self-extracting archive starts with a program).
func detect(r io.ReaderAt, size int64, name string) (format, error) {
	head := make([]byte, 512)
	n, err := r.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", extractors.Transient(fmt.Errorf("read %s: %w", name, err))
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return formatZip, nil
	case bytes.HasPrefix(head, sevenZMagic):
		return format7z, nil
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return formatGzip, nil
	case bytes.HasPrefix(head, []byte("BZh")):
		return formatBz2, nil
	case bytes.HasPrefix(head, xzMagic):
		return formatXZ, nil
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return formatZstd, nil
	case isTar(head):
		return formatTar, nil
	}
	if extOf(name) == "zip" || extOf(name) == "exe" {
		if _, err := findZipDir(r, size); err == nil {
			return formatZip, nil
		}
	}
	return "", fmt.Errorf("not an archive this extractor reads: %w", extractors.ErrUnsupported)
}
