package office

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/metaharvest/metaharvest/extractors"
)

// maxThumbnailBytes bounds the embedded picture read (applications write
// a few KiB to a few hundred).
const maxThumbnailBytes = 4 << 20

// Accept takes the office documents this package reads (OOXML and
// OpenDocument, by MIME type or extension).
func Accept(f extractors.File) bool { return acceptOffice(f) }

// Thumbnail returns the picture an office document carries of its first
// page: in an OpenDocument package Thumbnails/thumbnail.png, which every
// OpenDocument application writes; in an Office Open XML package the part
// its thumbnail relationship names (docProps/thumbnail.jpeg), which Office
// writes when asked to save one. The zip is read under this package's
// caps. A document without one gives an error wrapping
// extractors.ErrUnsupported.
func Thumbnail(ctx context.Context, r io.ReaderAt, size int64) ([]byte, error) {
	a, err := openArchive(r, size)
	if err != nil {
		return nil, err
	}
	part := ""
	switch {
	case a.has("mimetype") || a.has("content.xml"):
		part = "Thumbnails/thumbnail.png"
	case a.has("[Content_Types].xml"):
		_, rels, err := relationships(ctx, a, "_rels/.rels", "")
		if err != nil && !errors.Is(err, errMissing) {
			return nil, err
		}
		part = firstNonEmpty(rels["thumbnail"], "docProps/thumbnail.jpeg")
	default:
		return nil, errors.New("not an office document: neither Office Open XML nor OpenDocument")
	}
	if !a.has(part) {
		return nil, fmt.Errorf("the document carries no thumbnail: %w", extractors.ErrUnsupported)
	}
	return a.readSmall(part, maxThumbnailBytes)
}
