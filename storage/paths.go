package storage

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultUploadContainer receives uploads whose path has a single segment.
const DefaultUploadContainer = "uploads"

// Limits on names written to disk. The OS would refuse longer ones anyway,
// but with an error the api would report as 500 instead of 400.
const (
	maxSegmentBytes = 255  // NAME_MAX on Linux and most filesystems
	maxPathBytes    = 4000 // under PATH_MAX (4096) with room for the root
)

// SplitUploadPath validates an upload path (already URL-decoded by the
// router) and splits it into container and item path: the first segment is
// the container, the rest the item path; a single-segment path goes to the
// container "uploads". Unacceptable paths wrap ErrBadPath.
//
// Everything that could name something other than a plain file below the
// store is refused rather than normalised: "a/../b" is not "b", because a
// client that sends it is either buggy or probing, and silently cleaning it
// would make two spellings of one item.
func SplitUploadPath(relPath string) (container, path string, err error) {
	if err := checkUploadPath(relPath); err != nil {
		return "", "", err
	}
	first, rest, ok := strings.Cut(relPath, "/")
	if !ok {
		return DefaultUploadContainer, relPath, nil
	}
	return first, rest, nil
}

// checkUploadPath is the strict rule for names we create: on top of
// checkItemPath it refuses backslashes (a Windows separator, and a classic
// traversal spelling for servers that translate it), control characters and
// invalid UTF-8 (names must survive JSON, logs and terminals intact).
func checkUploadPath(p string) error {
	if err := checkItemPath(p, false); err != nil {
		return err
	}
	if len(p) > maxPathBytes {
		return badPath(p, "is too long")
	}
	if !utf8.ValidString(p) {
		return badPath(p, "is not valid UTF-8")
	}
	if hasEscapes(p) {
		return badPath(p, "contains a character of U+10FF80 to U+10FFFF (they stand for the bytes of names that are not UTF-8)")
	}
	for _, r := range p {
		switch {
		case r == '\\':
			return badPath(p, "contains a backslash")
		case unicode.IsControl(r):
			return badPath(p, "contains a control character")
		}
	}
	for seg := range strings.SplitSeq(p, "/") {
		if len(seg) > maxSegmentBytes {
			return badPath(p, "has a segment longer than 255 bytes")
		}
	}
	return nil
}

// checkItemPath is the rule for item paths given to Stat, Open and
// LocalPath: a relative, slash-separated path whose segments are non-empty
// and neither "." nor "..", without NUL. Hidden segments (leading ".") are
// refused unless hiddenOK, because the filesystem kinds never list them (the
// upload store keeps its temporary files under hidden names).
func checkItemPath(p string, hiddenOK bool) error {
	if p == "" {
		return badPath(p, "is empty")
	}
	if p[0] == '/' {
		return badPath(p, "is absolute")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return badPath(p, "contains NUL")
	}
	for seg := range strings.SplitSeq(p, "/") {
		if err := checkSegment(p, seg, hiddenOK); err != nil {
			return err
		}
	}
	return nil
}

// checkContainerName accepts a single path segment by the same rules.
func checkContainerName(name string, hiddenOK bool) error {
	if strings.Contains(name, "/") {
		return badPath(name, "container name contains a slash")
	}
	if strings.IndexByte(name, 0) >= 0 {
		return badPath(name, "contains NUL")
	}
	return checkSegment(name, name, hiddenOK)
}

func checkSegment(p, seg string, hiddenOK bool) error {
	switch {
	case seg == "":
		return badPath(p, "has an empty segment")
	case seg == "." || seg == "..":
		return badPath(p, fmt.Sprintf("has a %q segment", seg))
	case !hiddenOK && seg[0] == '.':
		return badPath(p, "has a hidden (dot) segment")
	}
	return nil
}

func badPath(p, problem string) error {
	// %q escapes control characters so the message is safe to log.
	if len(p) > 200 {
		p = p[:200] + "..."
	}
	return fmt.Errorf("%w: %q %s", ErrBadPath, p, problem)
}
