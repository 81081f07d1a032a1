package probe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/metaharvest/metaharvest/extractors"
)

// source is the content of an item for the Go parsers of this package:
// the bytes the worker read already, or the file.
type source struct {
	io.ReaderAt
	Size  int64
	close func() error
}

func (s *source) Close() error {
	if s.close == nil {
		return nil
	}
	return s.close()
}

// open returns the item's content. Its size is what the file really holds,
// not what the storage said, so that no parser trusts a stale size.
func open(in *extractors.Input) (*source, error) {
	if in.Content != nil {
		return &source{ReaderAt: bytes.NewReader(in.Content), Size: int64(len(in.Content))}, nil
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("open %s: %w", in.Name, err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, extractors.Transient(fmt.Errorf("stat %s: %w", in.Name, err))
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file: %w", in.Name, extractors.ErrUnsupported)
	}
	return &source{ReaderAt: f, Size: fi.Size(), close: f.Close}, nil
}

// readOnce parses the item's content once per harvest of the file, under
// key of Input.Shared, for every extractor of the family that reads that
// structure: the first to ask opens and parses, the others get its
// result, or its error.
func readOnce[T any](ctx context.Context, in *extractors.Input, key string, parse func(src *source) (T, error)) (T, error) {
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
	return readOnce(ctx, in, "probe.isobmff", func(src *source) (*mp4Info, error) {
		info, err := readMP4(src, src.Size)
		if err != nil {
			return nil, nil
		}
		return info, nil
	})
}
