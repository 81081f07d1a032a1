package extractors

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
)

var _ Extractor = storeData{}

// storeData records what the storage says about the item: its name, the
// extension of that name and its size. It reads nothing of the content and
// derives nothing else, so that its data is always true of the stored file.
type storeData struct{}

func (storeData) Extract(ctx context.Context, in *Input) (*Result, error) {
	size := in.Size
	if size < 0 {
		// The storage did not say; the local copy has the same bytes.
		fi, err := os.Stat(in.Path)
		if err != nil {
			return nil, Transient(fmt.Errorf("stat %s: %w", in.Name, err))
		}
		size = fi.Size()
	}
	return &Result{Data: map[string]any{
		"name":      in.Name,
		"extension": extension(in.Name),
		"size":      size,
	}}, nil
}

// extension returns the lower-case extension of a file name without its dot:
// "IMG_1.JPG" -> "jpg", "a.tar.gz" -> "gz", ".bashrc" and "README" -> "".
func extension(name string) string {
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	ext := path.Ext(strings.TrimLeft(base, "."))
	return strings.ToLower(strings.TrimPrefix(ext, "."))
}
