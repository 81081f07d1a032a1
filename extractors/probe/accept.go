package probe

import (
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// mediaMIME are the MIME types (prefixes) of audio and video files as the
// mime_type extractor names them; some containers are "application/" types.
var mediaMIME = []string{"video/", "audio/", "application/ogg", "application/vnd.rn-realmedia", "application/mxf",
	"application/x-matroska", "application/vnd.ms-asf"}

// unknownMIME are the types mime_type gives content it does not recognise:
// only then does an extension decide (a TypeScript file named .ts is
// text/plain and stays out).
func unknownMIME(m string) bool {
	return m == "" || m == "application/octet-stream"
}

// acceptMIME accepts files whose MIME type starts with one of prefixes, or
// whose type is unknown and whose extension is one of exts.
func acceptMIME(prefixes []string, exts ...string) func(extractors.File) bool {
	return func(f extractors.File) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(f.MIME, p) {
				return true
			}
		}
		if !unknownMIME(f.MIME) {
			return false
		}
		for _, e := range exts {
			if f.Ext == e {
				return true
			}
		}
		return false
	}
}

// tsExts are the extensions of MPEG transport streams, which mime_type does
// not recognise by content.
var tsExts = []string{"ts", "m2ts", "mts", "m2t", "tsv", "trp", "tp"}

// mediaExts are the extensions of media files mime_type may not recognise:
// transport streams, MXF, raw elementary streams, fragments.
var mediaExts = append([]string{"mxf", "m4s", "cmfv", "cmfa", "ismv", "isma", "h264", "264", "h265", "hevc", "m2v",
	"vob", "evo", "dv", "ac3", "eac3", "dts", "mka", "opus", "caf", "w64", "rf64"}, tsExts...)
