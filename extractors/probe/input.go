package probe

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// open returns the item's content for the Go parsers of this package
// (doctext.OpenAt: its size is what the file really holds, not what the
// storage said, so that no parser trusts a stale size). A file that is not
// a regular file (a FIFO, a device) is not theirs.
func open(in *extractors.Input) (*doctext.At, error) {
	src, err := doctext.OpenAt(in)
	if err != nil {
		return nil, err
	}
	if src.Info != nil && !src.Info.Mode().IsRegular() {
		src.Close()
		return nil, fmt.Errorf("%s is not a regular file: %w", in.Name, extractors.ErrUnsupported)
	}
	return src, nil
}

// readOnce parses the item's content once per harvest of the file, under
// key of Input.Shared, for every extractor of the family that reads that
// structure: the first to ask opens and parses, the others get its
// result, or its error.
func readOnce[T any](ctx context.Context, in *extractors.Input, key string, parse func(src *doctext.At) (T, error)) (T, error) {
	v, err := in.Shared(key, func() (any, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src, err := open(in)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		return parse(src)
	})
	if err != nil {
		var none T
		return none, err
	}
	return v.(T), nil
}

// mp4Of is the ISO base media walk of the item, made once per harvest of
// the file (drm and mediainfo both read it); nil without error when the
// file is not an ISO base media file.
func mp4Of(ctx context.Context, in *extractors.Input) (*mp4Info, error) {
	return readOnce(ctx, in, "probe.isobmff", func(src *doctext.At) (*mp4Info, error) {
		info, err := readMP4(src, src.Size)
		if err != nil {
			return nil, nil
		}
		return info, nil
	})
}
