package extractors

import (
	"io"
	"path"
	"strings"
)

// Bounds of Input.Siblings: a directory of thousands of "clip.*" files
// costs a harvest of clip.mp4 a bounded listing, and no sibling is read
// whole into memory by accident.
const (
	// MaxSiblings is the most siblings Input.Siblings returns.
	MaxSiblings = 16
	// MaxSiblingScan is the most directory entries starting with the base
	// name it looks at to find them.
	MaxSiblingScan = 256
)

// Sibling is a file in the same directory as the item whose name is the
// item's base name (its name without the last extension), a dot, and
// anything ending in one of the asked extensions: for clip.mp4 and "srt",
// clip.srt, clip.en.srt and clip.eng.forced.srt. Only regular files reached
// without a symlink are listed, the item itself never, files in
// sub-directories never, in name order.
type Sibling struct {
	// Name is the file name, without directory ("clip.en.srt").
	Name string
	// Size in bytes as listed.
	Size int64
	// Open reads the file with the same guarantees as the item's own file
	// (beneath its container, no symlink anywhere in the path). The caller
	// closes it and bounds what it reads: Size may have changed since.
	Open func() (io.ReadCloser, error)
}

// SiblingPrefix is what the names of an item's siblings start with: the
// item's base name and a dot ("clip." for "clip.mp4"), or "" when the name
// has no base (".mp4") and so no siblings.
func SiblingPrefix(name string) string {
	base := strings.TrimSuffix(name, path.Ext(name))
	if base == "" {
		return ""
	}
	return base + "."
}

// IsSibling reports whether name is a sibling of item with one of exts
// (lower case, no dot).
func IsSibling(item, name string, exts []string) bool {
	prefix := SiblingPrefix(item)
	if prefix == "" || name == item || !strings.HasPrefix(name, prefix) || strings.ContainsRune(name, '/') {
		return false
	}
	ext := extension(name)
	for _, e := range exts {
		if ext == e {
			return true
		}
	}
	return false
}
