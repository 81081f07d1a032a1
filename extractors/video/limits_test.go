package video

import (
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
)

func TestAccept(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name          string
		file          extractors.File
		frames, audio bool
	}{
		{"mp4", extractors.File{Ext: "mp4", MIME: "video/mp4"}, true, true},
		{"mpeg-ts", extractors.File{Ext: "ts", MIME: "application/octet-stream"}, true, true},
		{"mpeg-ts typed", extractors.File{Ext: "m2ts", MIME: "video/mp2t"}, true, true},
		{"TypeScript", extractors.File{Ext: "ts", MIME: "text/plain"}, false, false},
		{"raw H.264", extractors.File{Ext: "h264", MIME: "application/octet-stream"}, true, true}, // audio_previews finds no sound
		{"TypeScript module", extractors.File{Ext: "mts", MIME: "text/plain"}, false, false},
		{"YUV4MPEG2 typed as text", extractors.File{Ext: "y4m", MIME: "text/plain"}, true, true},
		{"empty y4m", extractors.File{Ext: "y4m", MIME: "inode/x-empty"}, false, false},
		{"oga", extractors.File{Ext: "oga", MIME: "audio/ogg"}, false, true},
		{"ogg by type", extractors.File{Ext: "ogg", MIME: "application/ogg"}, false, true},
		{"AC-3", extractors.File{Ext: "ac3", MIME: "application/octet-stream"}, false, true},
		{"jpeg", extractors.File{Ext: "jpg", MIME: "image/jpeg"}, false, false},
	} {
		frames, _ := extractors.Default.Get("video_main_frames")
		previews, _ := extractors.Default.Get("video_previews")
		audio, _ := extractors.Default.Get("audio_previews")
		if frames.Accept(c.file) != c.frames || previews.Accept(c.file) != c.frames || audio.Accept(c.file) != c.audio {
			t.Errorf("%s: frames/previews %v audio %v", c.name, frames.Accept(c.file), audio.Accept(c.file))
		}
	}
}
