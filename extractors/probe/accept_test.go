package probe

import (
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

// Accept keeps other files free: an extension decides only when mime_type
// did not recognise the content (transport streams and DPX images, which
// it reads as application/octet-stream), or, for mediainfo, when a
// playlist is named as a media file.
func TestAccept(t *testing.T) {
	t.Parallel()
	type file struct{ name, ext, mime string }
	cases := []struct {
		f    file
		want map[string]bool
	}{
		{file{"a.mp4", "mp4", "video/mp4"}, map[string]bool{"mediainfo": true, "audioinfo": true, "drm": true}},
		{file{"a.wav", "wav", "audio/wav"}, map[string]bool{"mediainfo": true, "audioinfo": true, "drm": true}},
		{file{"a.ogv", "ogv", "application/ogg"}, map[string]bool{"mediainfo": true, "audioinfo": true, "drm": true}},
		{file{"a.wmv", "wmv", "video/x-ms-asf"}, map[string]bool{"mediainfo": true, "audioinfo": true, "drm": true}},
		{file{"a.ts", "ts", "application/octet-stream"}, map[string]bool{"mediainfo": true, "audioinfo": true, "drm": true, "m2ts": true}},
		{file{"a.m2ts", "m2ts", ""}, map[string]bool{"mediainfo": true, "audioinfo": true, "drm": true, "m2ts": true}},
		{file{"a.ts", "ts", "text/plain"}, map[string]bool{}}, // TypeScript
		{file{"a.dpx", "dpx", "application/octet-stream"}, map[string]bool{"dpx": true}},
		{file{"a.dpx", "dpx", "text/plain"}, map[string]bool{}},
		{file{"a.jpg", "jpg", "image/jpeg"}, map[string]bool{}},
		{file{"a.pdf", "pdf", "application/pdf"}, map[string]bool{}},
		{file{"a.bin", "bin", "application/octet-stream"}, map[string]bool{}},
		{file{"a.m4s", "m4s", "application/octet-stream"}, map[string]bool{"mediainfo": true, "audioinfo": true, "drm": true}},
		// An HLS playlist named as media: mediainfo takes it to refuse it.
		{file{"a.mp4", "mp4", "application/vnd.apple.mpegurl"}, map[string]bool{"mediainfo": true}},
		{file{"a.ts", "ts", "application/vnd.apple.mpegurl"}, map[string]bool{"mediainfo": true}},
		{file{"a.m3u8", "m3u8", "application/vnd.apple.mpegurl"}, map[string]bool{}},
	}
	for _, info := range []extractors.Info{mediainfoInfo, audioinfoInfo, m2tsInfo, dpxInfo, drmInfo} {
		for _, c := range cases {
			got := info.Accept(extractors.File{Name: c.f.name, Ext: c.f.ext, MIME: c.f.mime, Size: 1000})
			if got != c.want[info.Name] {
				t.Errorf("%s accepts %+v: %v", info.Name, c.f, got)
			}
		}
	}
}

// The family registers its extractors in the Default registry.
func TestRegisteredInDefault(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"mediainfo", "audioinfo", "m2ts", "dpx", "drm"} {
		info, ok := extractors.Default.Get(name)
		if !ok || !info.Implemented || len(info.Fields) == 0 {
			t.Errorf("%s: %+v", name, info)
		}
	}
}
