package models

import "testing"

func TestMediaType(t *testing.T) {
	for mime, want := range map[string]string{
		"video/mp4": "video", "VIDEO/QuickTime": "video", "audio/mpeg": "audio", "image/png": "image",
		"text/plain; charset=utf-8": "document", "application/pdf": "document", "message/rfc822": "document",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document": "document",
		"application/vnd.oasis.opendocument.text":                                 "document",
		"application/zip": "other", "": "other", "inode/x-empty": "other",
	} {
		if got := MediaType(mime); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", mime, got, want)
		}
	}
}
