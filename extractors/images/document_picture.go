package images

import (
	"bytes"
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/office"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// pictureEmbedded is the thumbnailer's picture kind of an office document:
// the picture of its first page that the application saved in it.
const pictureEmbedded = "embedded"

// document makes the picture of an office document from the one it
// carries (office.Thumbnail). A document without one, or with one in a
// format Go does not decode (the WMF and EMF of older Windows Office), is
// not the thumbnailer's (ErrUnsupported: nothing recorded).
func (t *thumbnailer) document(ctx context.Context, in *extractors.Input, res *extractors.Result, maxSide int) (*Picture, error) {
	src, err := doctext.OpenAt(in)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	b, err := office.Thumbnail(ctx, src, src.Size)
	if err != nil {
		return nil, err
	}
	format := sniff(b)
	if format == "" {
		return nil, fmt.Errorf("the document's thumbnail is in a format not decoded here: %w", extractors.ErrUnsupported)
	}
	pic, err := t.load.loadGo(ctx, bytes.NewReader(b), format, maxSide)
	if err != nil {
		return nil, fmt.Errorf("the document's thumbnail: %w", err)
	}
	res.Data["picture"] = pictureEmbedded
	res.Data["source"] = map[string]any{"width": pic.Width, "height": pic.Height, "orientation": pic.Orientation,
		"decoder": pic.Decoder, "format": pic.Format}
	return pic, nil
}
