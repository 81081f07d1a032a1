package extractors

import "strings"

// rangeURLPrefix starts the Input.Path of a remote object that the
// worker serves by byte ranges on loopback instead of downloading it: the
// extractors whose Info says RangeReads read it through av.InputArgs
// (ffmpeg and ffprobe fetch the ranges they seek to) and doctext.OpenAt
// (Go parsers read ranges). A local path is absolute, so it never starts
// with it.
const rangeURLPrefix = "http://127.0.0.1:"

// IsRangeURL reports whether path is such a loopback URL rather than a
// local file.
func IsRangeURL(path string) bool { return strings.HasPrefix(path, rangeURLPrefix) }

// streams reports whether the Inline extractors read the content from
// Stream: a remote object that is not on disk (no Path, or a range URL).
func (in *Input) streams() bool {
	return in.Content == nil && in.Stream != nil && (in.Path == "" || IsRangeURL(in.Path))
}
