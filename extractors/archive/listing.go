package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// Caps of one archive (see doc.go).
const (
	MaxListed        = 10000
	MaxEntries       = 1000000
	MaxStreamBytes   = 4 << 30
	MaxRatio         = 100
	RatioFloor       = 256 << 20
	MaxDeclaredTotal = 1 << 40
	MaxNestedSize    = 16 << 20
	MaxNested        = 32
	MaxTextFile      = 64 << 10
	MaxTextTotal     = 1 << 20
	maxTextFiles     = 1000
	maxUnsafeListed  = 100
	maxNameBytes     = 1024
)

// Why a walk stopped before the end of the archive.
const (
	stopEntries   = "entries"
	stopBytes     = "bytes"
	stopTimeLimit = "time_limit"
	stopDamaged   = "damaged"
)

// stopError ends a walk early on a cap: the listing so far is the result.
type stopError struct{ reason string }

func (e *stopError) Error() string { return "walk stopped: " + e.reason }

// hostileError ends a walk on an archive made to harm whoever unpacks it:
// a decompression bomb or an entry that would be written outside the
// directory it is extracted into (zip slip). The extractor fails with it
// (deterministic, not retried) and keeps nothing of the listing.
type hostileError struct{ msg string }

func (e *hostileError) Error() string { return e.msg }

// bomb is the error of an archive found to be a decompression bomb.
func bomb(reason string) error {
	return &hostileError{"decompression bomb refused: " + reason}
}

// slip is the error of an entry whose name escapes the extraction
// directory.
func slip(name, reason string) error {
	return &hostileError{fmt.Sprintf("unsafe entry refused (zip slip): %q: %s", name, reason)}
}

// endsWalk reports whether err ends the whole walk, nested archives
// included: a cap reached, or a hostile archive.
func endsWalk(err error) bool {
	var stop *stopError
	var hostile *hostileError
	return errors.As(err, &stop) || errors.As(err, &hostile)
}

// Entry is one member of an archive as a reader found it.
type Entry struct {
	Name string
	// Size is the uncompressed size (declared by zip and 7z headers, the
	// header's size for tar, counted for a single compressed file).
	Size int64
	// CompressedSize is the stored size; negative when unknown (tar).
	CompressedSize int64
	Mode           fs.FileMode
	Modified       time.Time
	// Type: file, dir, symlink, hardlink, device, fifo, other.
	Type      string
	Link      string
	Encrypted bool
}

// scope is where a reader walks: the archive itself (depth 0), or an
// archive inside it (depth 1, inner names the inner archive).
type scope struct {
	depth int
	inner string
}

// listing accumulates what the readers find, enforcing the caps.
type listing struct {
	ctx    context.Context
	stopAt time.Time
	// maxEntries is MaxEntries (lowered by tests).
	maxEntries int

	format      string
	archiveSize int64

	listed       []map[string]any
	count        int
	files, dirs  int
	links        int
	totalSize    int64
	unsafe       []map[string]any
	unsafeCount  int
	encrypted    bool
	stoppedBy    string
	damage       string
	nested       int
	nestedErrors int

	text      bytes.Buffer
	textFiles int
}

// check is called for every entry and every megabyte decompressed: the
// harvest's cancellation and the time limit.
func (l *listing) check() error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	if !l.stopAt.IsZero() && time.Now().After(l.stopAt) {
		return &stopError{stopTimeLimit}
	}
	return nil
}

// add records an entry. It returns a stopError when the walk must end
// (too many entries, time limit), a hostileError for an entry whose name
// escapes the extraction directory or that declares a bomb's ratio, the
// context's error when cancelled. unsafe is the entry's reason not to be
// read ("" when it is safe): a link or a special file.
func (l *listing) add(sc scope, e Entry) (unsafe string, err error) {
	if err := l.check(); err != nil {
		return "", err
	}
	if l.count >= l.maxEntries {
		return "", &stopError{stopEntries}
	}
	l.count++
	switch e.Type {
	case "dir":
		l.dirs++
	case "file":
		l.files++
	case "symlink", "hardlink":
		l.links++
	}
	if e.Size > 0 {
		l.totalSize = min(l.totalSize+e.Size, 1<<62)
	}
	if e.Encrypted {
		l.encrypted = true
	}
	name := cleanName(e.Name)
	if reason := UnsafeReason(e.Name); reason != "" {
		return "", slip(name, reason)
	}
	switch {
	case e.Type == "symlink" || e.Type == "hardlink":
		unsafe = "link"
	case e.Type == "device" || e.Type == "fifo":
		unsafe = "special file"
	}
	ratio := 0.0
	if e.CompressedSize > 0 && e.Size >= 0 {
		ratio = float64(e.Size) / float64(e.CompressedSize)
		if e.Size > RatioFloor && ratio > MaxRatio {
			return "", bomb(fmt.Sprintf("entry %q declares %d bytes from %d", name, e.Size, e.CompressedSize))
		}
	}
	if unsafe != "" {
		l.unsafeCount++
		if len(l.unsafe) < maxUnsafeListed {
			u := map[string]any{"name": name, "reason": unsafe}
			if sc.inner != "" {
				u["archive"] = sc.inner
			}
			l.unsafe = append(l.unsafe, u)
		}
	}
	if len(l.listed) < MaxListed {
		m := map[string]any{"name": name, "size": max(e.Size, 0), "type": e.Type, "mode": e.Mode.String()}
		if e.CompressedSize >= 0 {
			m["compressed_size"] = e.CompressedSize
		}
		if ratio > 0 {
			m["ratio"] = round2(ratio)
		}
		if t := e.Modified; !t.IsZero() && t.Year() >= 1970 && t.Year() < 10000 {
			m["modified"] = t.UTC().Format(time.RFC3339)
		}
		if e.Link != "" {
			m["link"] = cleanName(e.Link)
		}
		if e.Encrypted {
			m["encrypted"] = true
		}
		if unsafe != "" {
			m["unsafe"] = true
			m["unsafe_reason"] = unsafe
		}
		if sc.inner != "" {
			m["archive"] = sc.inner
		}
		l.listed = append(l.listed, m)
	}
	return unsafe, nil
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// cleanName makes a name fit for Data: valid UTF-8, at most maxNameBytes.
func cleanName(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return doctext.Cut(s, maxNameBytes)
}

// textExts are the inner documents whose text is read.
var textExts = map[string]bool{"txt": true, "text": true, "md": true, "markdown": true, "csv": true, "tsv": true, "log": true, "rst": true}

func extOf(name string) string {
	name = strings.ReplaceAll(name, `\`, "/")
	return strings.ToLower(strings.TrimPrefix(path.Ext(path.Base(name)), "."))
}

// wantsText says whether the text of an entry is read: a text document of
// at most MaxTextFile bytes, safe, while the total allows.
func (l *listing) wantsText(e Entry, unsafe string) bool {
	return unsafe == "" && e.Type == "file" && !e.Encrypted && e.Size >= 0 && e.Size <= MaxTextFile &&
		textExts[extOf(e.Name)] && l.text.Len() < MaxTextTotal && l.textFiles < maxTextFiles
}

// addText keeps the text of a document, decoded as a text file outside an
// archive is (UTF-16, UTF-8, or the code page it reads best in); binary
// content is skipped.
func (l *listing) addText(data []byte) {
	if len(data) > MaxTextFile {
		data = data[:MaxTextFile]
	}
	s, _ := doctext.DecodeBytes(data)
	if strings.IndexByte(s, 0) >= 0 || doctext.LooksBinary(s) {
		return
	}
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if s == "" {
		return
	}
	room := MaxTextTotal - l.text.Len()
	if l.text.Len() > 0 {
		room -= 2
	}
	if room <= 0 {
		return
	}
	s = doctext.Cut(s, room)
	if l.text.Len() > 0 {
		l.text.WriteString("\n\n")
	}
	l.text.WriteString(s)
	l.textFiles++
}

// archiveExts are the entries opened as nested archives.
var archiveExts = map[string]bool{"zip": true, "tar": true, "gz": true, "tgz": true, "bz2": true, "tbz2": true,
	"tbz": true, "xz": true, "txz": true, "zst": true, "tzst": true, "7z": true}

// wantsNested says whether an entry is opened as a nested archive.
func (l *listing) wantsNested(sc scope, e Entry, unsafe string) bool {
	return sc.depth == 0 && unsafe == "" && e.Type == "file" && !e.Encrypted && e.Size >= 0 &&
		e.Size <= MaxNestedSize && archiveExts[extOf(e.Name)] && l.nested < MaxNested
}

// walkNested lists an archive found inside the archive, one level deep.
// Its failures are counted, not returned: the outer listing stands, but
// for a cap, a hostile inner archive (the outer one is hostile then) and
// a cancelled harvest.
func (l *listing) walkNested(name string, data []byte) error {
	l.nested++
	err := walkBytes(l, scope{depth: 1, inner: cleanName(name)}, name, data)
	switch {
	case err == nil:
	case endsWalk(err), l.ctx.Err() != nil:
		return err
	default:
		l.nestedErrors++
	}
	return nil
}

// data is the extractor's Data.
func (l *listing) data() map[string]any {
	d := map[string]any{
		"format":          l.format,
		"entry_count":     l.count,
		"listed":          len(l.listed),
		"files":           l.files,
		"directories":     l.dirs,
		"links":           l.links,
		"total_size":      l.totalSize,
		"compressed_size": l.archiveSize,
		"truncated":       l.stoppedBy != "" || l.count > len(l.listed),
		"unsafe_entries":  l.unsafeCount,
		"encrypted":       l.encrypted,
		"nested_archives": l.nested,
		"text_files":      l.textFiles,
		"entries":         l.listed,
	}
	if l.archiveSize > 0 {
		d["ratio"] = round2(float64(l.totalSize) / float64(l.archiveSize))
	}
	if l.stoppedBy != "" {
		d["stopped_by"] = l.stoppedBy
	}
	if l.damage != "" {
		d["damage"] = l.damage
	}
	if l.nestedErrors > 0 {
		d["nested_errors"] = l.nestedErrors
	}
	if len(l.unsafe) > 0 {
		d["unsafe"] = l.unsafe
	}
	if l.text.Len() > 0 {
		d["text"] = l.text.String()
	}
	return d
}
