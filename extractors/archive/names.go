package archive

import "strings"

// UnsafeReason says why an entry name would write outside the directory
// an archive is extracted into ("zip slip"), or "" when it would not:
// "absolute path" for /etc/passwd, \\server\share, C:\ or C:file,
// "parent directory" for a ".." element (either slash counts: Windows
// tools take both), "nul byte" for a name a C library would cut short.
// Names are never cleaned first: "a/../../b" is refused as it stands.
func UnsafeReason(name string) string {
	switch {
	case strings.IndexByte(name, 0) >= 0:
		return "nul byte"
	case strings.HasPrefix(name, "/"), strings.HasPrefix(name, `\`):
		return "absolute path"
	case len(name) >= 2 && name[1] == ':' && isLetter(name[0]):
		return "absolute path"
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "parent directory"
		}
	}
	return ""
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
