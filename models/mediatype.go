package models

import "strings"

// Media types: the "type" field of search documents and of the search
// request's types, as MediaType derives them from an item's MIME type.
const (
	TypeVideo    = "video"
	TypeAudio    = "audio"
	TypeImage    = "image"
	TypeDocument = "document"
	TypeOther    = "other"
)

// MediaTypes lists the media types, in the order counts and facets use.
var MediaTypes = []string{TypeVideo, TypeAudio, TypeImage, TypeDocument, TypeOther}

// documentMIMEs are the non-text MIME types counted as documents.
var documentMIMEs = map[string]bool{
	"application/pdf":               true,
	"application/msword":            true,
	"application/rtf":               true,
	"application/epub+zip":          true,
	"application/vnd.ms-excel":      true,
	"application/vnd.ms-powerpoint": true,
	"application/json":              true,
	"application/xml":               true,
	"application/x-subrip":          true,
	"message/rfc822":                true,
}

// MediaType derives the "type" field from a MIME type: video, audio, image,
// document (text, PDF, office formats, e-mail) or other.
func MediaType(mime string) string {
	mime = strings.ToLower(strings.TrimSpace(mime))
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = strings.TrimSpace(mime[:i])
	}
	switch {
	case strings.HasPrefix(mime, "video/"):
		return TypeVideo
	case strings.HasPrefix(mime, "audio/"):
		return TypeAudio
	case strings.HasPrefix(mime, "image/"):
		return TypeImage
	case strings.HasPrefix(mime, "text/"),
		documentMIMEs[mime],
		strings.HasPrefix(mime, "application/vnd.openxmlformats-officedocument."),
		strings.HasPrefix(mime, "application/vnd.oasis.opendocument."):
		return TypeDocument
	}
	return TypeOther
}
