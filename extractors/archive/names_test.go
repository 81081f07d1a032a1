package archive

import (
	"strings"
	"testing"
)

func TestUnsafeReason(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"a/b.txt":            "",
		"a/..b/c":            "",
		"..a":                "",
		"dir/":               "",
		"./x":                "",
		"../x":               "parent directory",
		"a/../../x":          "parent directory",
		`a\..\x`:             "parent directory",
		"..":                 "parent directory",
		"/etc/passwd":        "absolute path",
		`\\server\share\x`:   "absolute path",
		`C:\Windows\x`:       "absolute path",
		"c:relative":         "absolute path",
		"1:x":                "",
		"a\x00.txt":          "nul byte",
		"über/../../../evil": "parent directory",
	} {
		if got := UnsafeReason(name); got != want {
			t.Errorf("UnsafeReason(%q) = %q, want %q", name, got, want)
		}
	}
}

func FuzzUnsafeReason(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "/abs", `C:\x`, "a\\..\\b", "a\x00b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		r := UnsafeReason(name)
		// Whatever is accepted stays below the extraction directory
		// under both slash conventions.
		if r == "" {
			norm := strings.ReplaceAll(name, `\`, "/")
			if strings.HasPrefix(norm, "/") || strings.Contains("/"+norm+"/", "/../") || strings.IndexByte(name, 0) >= 0 {
				t.Fatalf("%q accepted", name)
			}
		}
	})
}
