package pdf

import (
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // page sizes are read from the files pdftoppm wrote
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "document_pages",
		DisplayName:    "Document Pages",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"pdfinfo", "pdftoppm"},
		Accept:         acceptPDF,
		Settings: []extractors.Setting{
			{Name: "max_pages", Env: "DOCUMENT_PAGES_MAX_PAGES", Kind: extractors.KindInt, Default: "50", Min: 1, Max: 1000,
				Doc: "pages rendered from the start of a document"},
			{Name: "max_side", Env: "DOCUMENT_PAGES_MAX_SIDE", Kind: extractors.KindInt, Default: "1024", Min: 64, Max: 4096,
				Doc: "pixels of the long side of a page image"},
		},
		Fields: []extractors.Field{
			{Path: "page_count", Type: extractors.TypeNumber, Doc: "pages of the document"},
			{Path: "rendered_count", Type: extractors.TypeNumber, Doc: "pages rendered as images (the first ones)"},
			{Path: "format", Type: extractors.TypeString, Doc: "image format of the pages: jpeg"},
			{Path: "pages.page", Type: extractors.TypeNumber, Doc: "page number, from 1"},
			{Path: "pages.path", Type: extractors.TypeString, Doc: "the page image, relative to this extractor's artifact directory", Internal: true},
			{Path: "pages.width", Type: extractors.TypeNumber, Doc: "pixels"},
			{Path: "pages.height", Type: extractors.TypeNumber, Doc: "pixels"},
			{Path: "thumbnail.path", Type: extractors.TypeString, Doc: "small image of the first page, relative to this extractor's artifact directory", Internal: true},
			{Path: "thumbnail.width", Type: extractors.TypeNumber, Doc: "pixels"},
			{Path: "thumbnail.height", Type: extractors.TypeNumber, Doc: "pixels"},
		},
		New: newPages,
	})
}

// thumbnailSide is the long side of the first-page thumbnail.
const thumbnailSide = 256

func newPages(env extractors.Env) (extractors.Extractor, error) {
	maxPages, err := env.Int("max_pages")
	if err != nil {
		return nil, err
	}
	maxSide, err := env.Int("max_side")
	if err != nil {
		return nil, err
	}
	return &pagesExtractor{run: env.Runner, maxPages: maxPages, maxSide: maxSide}, nil
}

type pagesExtractor struct {
	run               *extractors.Runner
	maxPages, maxSide int
}

func (x *pagesExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	inf, err := runPDFInfo(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"page_count": inf.Pages, "format": "jpeg", "rendered_count": 0}
	if inf.Pages == 0 {
		return &extractors.Result{Data: data}, nil
	}
	if err := os.MkdirAll(in.ArtifactDir, 0o755); err != nil {
		return nil, extractors.Transient(fmt.Errorf("artifact directory: %w", err))
	}
	last := min(inf.Pages, x.maxPages)
	_, err = x.run.Run(ctx, extractors.Cmd{Name: "pdftoppm", Heavy: true,
		Args: []string{"-jpeg", "-jpegopt", "quality=85", "-scale-to", strconv.Itoa(x.maxSide),
			"-f", "1", "-l", strconv.Itoa(last), argPath(in.Path), filepath.Join(in.ArtifactDir, "page")},
		MaxOutput: 1 << 20})
	if err != nil {
		return nil, toolError("pdftoppm", err)
	}
	pages, err := renderedPages(in.ArtifactDir)
	if err != nil {
		return nil, err
	}
	res := &extractors.Result{Data: data}
	list := make([]any, 0, len(pages))
	for _, p := range pages {
		list = append(list, map[string]any{"page": p.page, "path": p.path, "width": p.width, "height": p.height})
		res.Artifacts = append(res.Artifacts, extractors.Artifact{Path: p.path, Kind: "page", Width: p.width, Height: p.height})
	}
	data["pages"] = list
	data["rendered_count"] = len(list)

	_, err = x.run.Run(ctx, extractors.Cmd{Name: "pdftoppm", Heavy: true,
		Args: []string{"-jpeg", "-jpegopt", "quality=80", "-scale-to", strconv.Itoa(thumbnailSide),
			"-f", "1", "-l", "1", "-singlefile", argPath(in.Path), filepath.Join(in.ArtifactDir, "thumbnail")},
		MaxOutput: 1 << 20})
	if err != nil {
		return nil, toolError("pdftoppm", err)
	}
	if w, h, err := imageSize(filepath.Join(in.ArtifactDir, "thumbnail.jpg")); err == nil {
		data["thumbnail"] = map[string]any{"path": "thumbnail.jpg", "width": w, "height": h}
		res.Artifacts = append(res.Artifacts, extractors.Artifact{Path: "thumbnail.jpg", Kind: "thumbnail", Width: w, Height: h})
	}
	return res, nil
}

type renderedPage struct {
	page          int
	path          string
	width, height int
}

// renderedPages lists the page-N.jpg files pdftoppm wrote (N padded to
// the digits of the last page number) in page order.
func renderedPages(dir string) ([]renderedPage, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("read artifact directory: %w", err))
	}
	var out []renderedPage
	for _, e := range entries {
		name := e.Name()
		num, ok := strings.CutPrefix(name, "page-")
		if !ok {
			continue
		}
		num, ok = strings.CutSuffix(num, ".jpg")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 1 {
			continue
		}
		w, h, err := imageSize(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		out = append(out, renderedPage{page: n, path: name, width: w, height: h})
	}
	if len(out) == 0 {
		return nil, errors.New("pdftoppm rendered no page")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].page < out[j].page })
	return out, nil
}

func imageSize(path string) (int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(f)
	if err != nil {
		return 0, 0, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return cfg.Width, cfg.Height, nil
}
