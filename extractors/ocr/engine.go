package ocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // formats whose size is checked before tesseract reads them
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"

	"github.com/metaharvest/metaharvest/extractors"
)

// Limits on what one image costs tesseract.
const (
	// maxPixels: a larger picture is refused before tesseract reads it (a
	// pixel flood: a small file that declares a huge picture). 50
	// megapixels is an A4 page scanned at 600 dpi with room to spare.
	maxPixels = 50_000_000
	// maxSide: tesseract keeps coordinates in 16 bits.
	maxSide = 32000
	// minSide: tesseract cannot scale anything smaller; such an image
	// holds no text anyway.
	minSide = 3
	// maxTSV bounds tesseract's output for one image.
	maxTSV = 16 << 20
	// tesseractMemory bounds tesseract's address space: its models and
	// a picture of maxPixels fit well within it.
	tesseractMemory = 3 << 30
)

// Settings every extractor of the package reads (the analyses read text
// with the same languages and within the same budget as tesseract).
var settings = []extractors.Setting{
	{Name: "languages", Env: "TESSERACT_LANGUAGES", Kind: extractors.KindText, Default: "eng",
		Doc: `languages tesseract reads, joined by "+" ("eng+fra"); each must be installed (tesseract --list-langs)`},
	{Name: "max_images", Env: "TESSERACT_MAX_IMAGES", Kind: extractors.KindInt, Default: "200", Min: 1, Max: 2000,
		Doc: "images read per item at most: pages of a scanned document, frames of a video"},
}

// engine runs tesseract on one image at a time; one per extractor, made at
// set-up with the checked settings.
type engine struct {
	run       *extractors.Runner
	languages []string
	maxImages int
}

// newEngine checks the settings: the languages must be installed, which
// `tesseract --list-langs` says once per extractor and process.
func newEngine(env extractors.Env) (*engine, error) {
	maxImages, err := env.Int("max_images")
	if err != nil {
		return nil, err
	}
	installed, err := installedLanguages(env.Runner)
	if err != nil {
		return nil, err
	}
	langs, err := parseLanguageSetting(env.Get("languages"), installed)
	if err != nil {
		return nil, err
	}
	return &engine{run: env.Runner, languages: langs, maxImages: maxImages}, nil
}

// imageSize reads the size a picture declares, without decoding it, and
// refuses what tesseract should not be given: what is not a picture in a
// format both Go and tesseract read (PNG, JPEG, GIF, BMP, TIFF, WebP), and
// pictures beyond the pixel limits. Checking the format here also keeps
// tesseract from reading a file it does not recognise as a list of image
// names (which it would then open, URLs included).
func imageSize(path string) (w, h int, format string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, "", extractors.Transient(fmt.Errorf("open image: %w", err))
	}
	defer f.Close()
	cfg, format, err := image.DecodeConfig(io.LimitReader(f, 64<<20))
	if err != nil {
		return 0, 0, "", fmt.Errorf("not a picture tesseract is given (PNG, JPEG, GIF, BMP, TIFF, WebP): %w", err)
	}
	w, h = cfg.Width, cfg.Height
	switch {
	case w <= 0 || h <= 0:
		return 0, 0, "", fmt.Errorf("picture of %dx%d pixels", w, h)
	case w > maxSide || h > maxSide || int64(w)*int64(h) > maxPixels:
		return 0, 0, "", fmt.Errorf("picture of %dx%d pixels is over the OCR limit (%d megapixels, %d pixels a side)",
			w, h, maxPixels/1_000_000, maxSide)
	}
	return w, h, format, nil
}

// errTooSmall: the picture is too small to hold text.
var errTooSmall = errors.New("picture too small to read")

// read runs tesseract on one picture checked by imageSize and parses its
// TSV output:
//
//	tesseract FILE - -l LANGS --psm 3 -c tessedit_page_number=0 tsv
//
// Only the first page of a multi-page TIFF is read (each page would cost
// as much as a picture, unbounded in number).
func (e *engine) read(ctx context.Context, path string) (*Recognition, error) {
	w, h, _, err := imageSize(path)
	if err != nil {
		return nil, err
	}
	if w < minSide || h < minSide {
		return nil, errTooSmall
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("image path: %w", err))
	}
	out, err := e.run.Run(ctx, extractors.Cmd{Name: "tesseract",
		Args:      []string{abs, "-", "-l", strings.Join(e.languages, "+"), "--psm", "3", "-c", "tessedit_page_number=0", "tsv"},
		Env:       []string{"OMP_THREAD_LIMIT=1"},
		Heavy:     true,
		MaxOutput: maxTSV,
		MaxMemory: tesseractMemory,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("tesseract: %w", err)
	}
	rec, err := ParseTSV(out)
	if err != nil {
		return nil, fmt.Errorf("tesseract output: %w", err)
	}
	return rec, nil
}
