package extractors

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gabriel-vasile/mimetype"
)

var _ Extractor = mimeType{}

// sniffLimit bounds how much of the file is read to detect its type. mimetype
// itself reads only its read limit (4 KiB unless mimetype.SetLimit changed it);
// this bound holds even if some other package set that limit to 0 (unbounded).
const sniffLimit = 1 << 20

// emptyMIME is file(1)'s type of an empty file.
const emptyMIME = "inode/x-empty"

// mimeType detects the type of the content, not of the name: a JPEG named .txt
// is image/jpeg.
type mimeType struct{}

func (mimeType) Extract(ctx context.Context, in *Input) (*Result, error) {
	var mt *mimetype.MIME
	empty := len(in.Content) == 0
	if in.Content != nil {
		mt = mimetype.Detect(in.Content)
	} else {
		var f io.ReadCloser
		var err error
		if in.streams() {
			f, err = in.Stream(ctx, sniffLimit)
		} else {
			f, err = os.Open(in.Path)
		}
		if err != nil {
			return nil, Transient(fmt.Errorf("open %s: %w", in.Name, err))
		}
		defer f.Close()
		lr := &io.LimitedReader{R: f, N: sniffLimit}
		if mt, err = mimetype.DetectReader(lr); err != nil {
			return nil, Transient(fmt.Errorf("read %s: %w", in.Name, err))
		}
		empty = lr.N == sniffLimit
	}
	if empty {
		// Nothing was read: mimetype calls no bytes valid text/plain, file(1)
		// calls them empty, and so do we, so that text searches skip them.
		return &Result{Data: map[string]any{"mime_type": emptyMIME, "extension": ""}}, nil
	}
	// Parameters (charset) are left out so that mime_type compares equal in
	// search filters whatever the encoding of a text file.
	name, _, _ := strings.Cut(mt.String(), ";")
	return &Result{Data: map[string]any{
		"mime_type": strings.TrimSpace(name),
		"extension": strings.TrimPrefix(mt.Extension(), "."),
	}}, nil
}
