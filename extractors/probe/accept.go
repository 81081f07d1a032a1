package probe

import (
	"slices"
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

// playlistMIME are the types mime_type gives HLS and M3U playlists.
var playlistMIME = []string{"application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"}

// disguiseExts are the extensions of media files a playlist may be named
// with to pass for one.
var disguiseExts = append([]string{"mp4", "m4v", "m4a", "mov", "qt", "3gp", "mkv", "webm", "avi", "wmv", "wma", "asf", "flv",
	"mpg", "mpeg", "mp2", "mp3", "aac", "wav", "flac", "ogg", "oga", "ogv"}, mediaExts...)

// disguisedPlaylist reports whether a file of this MIME type and extension
// is a playlist named as a media file (an HLS playlist named .mp4): no
// media at all, but the URLs and paths of other files.
func disguisedPlaylist(mime, ext string) bool {
	return slices.Contains(playlistMIME, strings.TrimSpace(strings.SplitN(mime, ";", 2)[0])) && slices.Contains(disguiseExts, ext)
}
