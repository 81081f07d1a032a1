package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// thumbnailer makes the pictures that stand for an item: JPEG thumbnails
// of 320 and 1280 pixels on the long side (upright), for a video a
// representative frame (never a black one when the video has anything
// else), for a recording its cover art or its waveform (audio_picture.go),
// for an office document the picture of its first page it carries
// (document_picture.go),
// and for a video a sprite sheet of small frames at fixed intervals
// so that a player can show the moment under the pointer while scrubbing.
func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "thumbnailer",
		DisplayName:    "Thumbnails",
		Family:         extractors.FamilyImages,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Tools:          []string{"ffmpeg", "ffprobe"},
		Accept:         acceptThumbnailable,
		Fields:         thumbnailerFields,
		Settings: []extractors.Setting{{Name: "max_pixels", Env: "THUMBNAIL_MAX_PIXELS", Kind: extractors.KindInt, Default: strconv.Itoa(DefaultMaxPixels), Min: 1,
			Doc: "largest picture decoded, in pixels (width x height); larger ones are refused before decoding"}},
		New: func(env extractors.Env) (extractors.Extractor, error) {
			n, err := env.Int("max_pixels")
			if err != nil {
				return nil, err
			}
			return &thumbnailer{run: env.Runner, load: NewLoader(env.Runner, int64(n))}, nil
		},
	})
}

var thumbnailerFields = []extractors.Field{
	{Path: "thumbnail.path", Type: extractors.TypeString, Doc: "the main (small) thumbnail, relative to the extractor's artifact directory (artifact kind thumbnail)", Internal: true},
	{Path: "thumbnail.width", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "thumbnail.height", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "thumbnail.type", Type: extractors.TypeString, Doc: "image"},
	{Path: "thumbnails.path", Type: extractors.TypeString, Doc: "every size made, small first (artifact kinds thumbnail, thumbnail_large)", Internal: true},
	{Path: "thumbnails.width", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "thumbnails.height", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "thumbnails.size", Type: extractors.TypeNumber, Doc: "the long side asked for (320, 1280); smaller pictures are not scaled up"},
	{Path: "source.width", Type: extractors.TypeNumber, Doc: "stored width of the picture or video (of a recording: of its cover art, or of the drawn waveform), pixels"},
	{Path: "source.height", Type: extractors.TypeNumber, Doc: "stored height of the picture or video (of a recording: of its cover art, or of the drawn waveform), pixels"},
	{Path: "source.orientation", Type: extractors.TypeNumber, Doc: "EXIF orientation applied (1 none)"},
	{Path: "source.decoder", Type: extractors.TypeString, Doc: "go or ffmpeg", Internal: true},
	{Path: "source.format", Type: extractors.TypeString, Doc: "picture format or video codec (of a recording: the cover's codec, or the audio codec under a waveform)"},
	{Path: "frame_time", Type: extractors.TypeNumber, Doc: "video: time of the thumbnail frame, seconds"},
	{Path: "picture", Type: extractors.TypeString, Doc: "what the thumbnail of a recording or an office document shows: cover_art (the picture tagged in a recording), waveform (the whole recording, mixed to mono) or embedded (the picture of its first page an office document carries)"},
	{Path: "sprite.path", Type: extractors.TypeString, Doc: "video: sprite sheet (artifact kind sprite), tiles left to right, top to bottom", Internal: true},
	{Path: "sprite.type", Type: extractors.TypeString, Doc: "sprite"},
	{Path: "sprite.width", Type: extractors.TypeNumber, Doc: "sheet width, pixels"},
	{Path: "sprite.height", Type: extractors.TypeNumber, Doc: "sheet height, pixels"},
	{Path: "sprite.tile_width", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "sprite.tile_height", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "sprite.columns", Type: extractors.TypeNumber, Doc: "tiles per row"},
	{Path: "sprite.rows", Type: extractors.TypeNumber, Doc: "rows of tiles"},
	{Path: "sprite.count", Type: extractors.TypeNumber, Doc: "tiles holding a frame (the last row may be partly empty)"},
	{Path: "sprite.interval", Type: extractors.TypeNumber, Doc: "seconds between tiles: tile k shows the video at about k x interval seconds (k = floor(t / interval))"},
}

// AcceptPictures takes images and videos but the picture formats neither
// Go nor this ffmpeg decodes (vector drawings, HEIF).
func AcceptPictures(f extractors.File) bool {
	switch f.MIME {
	case "image/svg+xml", "image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence":
		return false
	}
	return strings.HasPrefix(f.MIME, "image/") || strings.HasPrefix(f.MIME, "video/")
}

// Thumbnail sizes (long side) and artifact kinds; the first is the main
// thumbnail of the item.
var thumbSizes = []struct {
	side int
	kind string
}{{320, "thumbnail"}, {1280, "thumbnail_large"}}

const (
	jpegQuality = 82
	// Sprite geometry: at most spriteTiles tiles of spriteTileWidth
	// pixels, spriteColumns per row, at least spriteMinInterval seconds
	// apart.
	spriteTiles       = 100
	spriteColumns     = 10
	spriteTileWidth   = 160
	spriteMinInterval = 1.0
	// keyframesOnlyFrom: from this interval between tiles on, the sprite
	// decodes key frames only: a tile is then the key frame at or before
	// its time (a few seconds early at worst) and a long video costs a
	// fraction of a full decode.
	keyframesOnlyFrom = 2.0
	// darkLuma is the mean luma (0-255) under which a frame is taken as
	// black and another moment is tried.
	darkLuma = 24
	// candidateFrames is how many frames the thumbnail filter compares at
	// each tried moment.
	candidateFrames = 25
	// spriteMemory bounds ffmpeg making the sprite.
	spriteMemory = 2 << 30
)

type thumbnailer struct {
	run  *extractors.Runner
	load *Loader
}

var _ extractors.Extractor = (*thumbnailer)(nil)

func (t *thumbnailer) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	maxSide := thumbSizes[len(thumbSizes)-1].side
	var (
		res = &extractors.Result{Data: map[string]any{}}
		pic *Picture
		err error
	)
	switch {
	case strings.HasPrefix(in.MIME, "video/"):
		pic, err = t.video(ctx, in, res, maxSide)
		if errors.Is(err, extractors.ErrUnsupported) {
			// No picture in it: a recording in a video container (an
			// audio-only WebM or MP4) is drawn as one.
			pic, err = t.audio(ctx, in, res, maxSide)
		}
	case strings.HasPrefix(in.MIME, "audio/"):
		pic, err = t.audio(ctx, in, res, maxSide)
	case strings.HasPrefix(in.MIME, "image/"):
		pic, err = t.load.Load(ctx, in.Path, maxSide)
		if pic != nil {
			res.Data["source"] = map[string]any{"width": pic.Width, "height": pic.Height, "orientation": pic.Orientation,
				"decoder": pic.Decoder, "format": pic.Format}
		}
	default: // an office document (acceptThumbnailable)
		pic, err = t.document(ctx, in, res, maxSide)
	}
	if err != nil {
		return nil, err
	}
	if err := t.writeThumbnails(in, pic.Image, res); err != nil {
		return nil, err
	}
	return res, nil
}

// writeThumbnails writes the sizes of img (already at most the largest)
// and records them. Sizes that come out the same (a small picture) are
// written once.
func (t *thumbnailer) writeThumbnails(in *extractors.Input, img *image.RGBA, res *extractors.Result) error {
	if err := os.MkdirAll(in.ArtifactDir, 0o755); err != nil {
		return extractors.Transient(fmt.Errorf("artifact directory: %w", err))
	}
	var list []any
	lastW, lastH := 0, 0
	for i, s := range thumbSizes {
		w, h := FitSize(img.Bounds().Dx(), img.Bounds().Dy(), s.side)
		if w == lastW && h == lastH {
			continue
		}
		lastW, lastH = w, h
		name := fmt.Sprintf("thumb_%d.jpg", s.side)
		small := img
		if w != img.Bounds().Dx() || h != img.Bounds().Dy() {
			small = Fit(img, s.side)
		}
		if err := WriteJPEG(filepath.Join(in.ArtifactDir, name), small); err != nil {
			return err
		}
		res.Artifacts = append(res.Artifacts, extractors.Artifact{Path: name, Kind: s.kind, Width: w, Height: h})
		list = append(list, map[string]any{"path": name, "width": w, "height": h, "size": s.side})
		if i == 0 {
			res.Data["thumbnail"] = map[string]any{"path": name, "width": w, "height": h, "type": "image"}
		}
	}
	res.Data["thumbnails"] = list
	return nil
}

// WriteJPEG writes img as a JPEG of the quality of thumbnails.
func WriteJPEG(path string, img image.Image) error {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return fmt.Errorf("encode jpeg: %w", err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return extractors.Transient(fmt.Errorf("write jpeg: %w", err))
	}
	return nil
}

// video picks the representative frame and writes the sprite sheet.
func (t *thumbnailer) video(ctx context.Context, in *extractors.Input, res *extractors.Result, maxSide int) (*Picture, error) {
	probe, v, err := av.ReadVideo(ctx, t.run, in)
	if err != nil {
		return nil, err
	}
	if err := t.load.check(v.Width, v.Height); err != nil {
		return nil, err
	}
	res.Data["source"] = map[string]any{"width": v.Width, "height": v.Height, "decoder": "ffmpeg", "format": doctext.Cut(v.CodecName, 64)}
	duration := probe.Duration()

	img, at, err := t.representativeFrame(ctx, in.Path, v.SampleAspectRatio, duration, maxSide)
	if err != nil {
		return nil, err
	}
	res.Data["frame_time"] = round(at, 3)
	if !probe.IsStill() && duration > 0 {
		if err := t.sprite(ctx, in, v.SampleAspectRatio, duration, res); err != nil {
			return nil, err
		}
	}
	return &Picture{Image: img, Width: v.Width, Height: v.Height, Orientation: 1, Format: v.CodecName, Decoder: "ffmpeg"}, nil
}

// squarePixels is the filter that makes the pixels of an anamorphic video
// square before anything else ("" for a video whose pixels are square:
// a scale to the same size still costs a copy of every frame).
func squarePixels(sar string) string {
	switch sar {
	case "", "1:1", "0:1", "N/A":
		return "null"
	}
	return "scale=w='trunc(iw*sar/2)*2':h=ih,setsar=1"
}

// representativeFrame tries moments of the video (10%, 30%, 50% of it, then
// its start) and takes the first whose frame is not dark; ffmpeg's
// thumbnail filter picks, among the frames that follow each moment, the
// one closest to their average (no flash, no cut). When every moment is
// dark, the brightest wins.
func (t *thumbnailer) representativeFrame(ctx context.Context, path, sar string, duration float64, maxSide int) (*image.RGBA, float64, error) {
	moments := []float64{0}
	if duration >= 2 {
		moments = []float64{0.1 * duration, 0.3 * duration, 0.5 * duration, 0}
	}
	filter := fmt.Sprintf("%s,%s,thumbnail=n=%d", squarePixels(sar), FitFilter(maxSide), candidateFrames)
	var (
		best     *image.RGBA
		bestAt   float64
		bestLuma = -1.0
		firstErr error
	)
	for _, at := range moments {
		seek := &at
		if at == 0 {
			seek = nil
		}
		b, err := FFmpegPNG(ctx, t.run, seek, path, filter, maxSide)
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, err
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		img, err := DecodePNG(b, maxSide)
		if err != nil {
			return nil, 0, err
		}
		luma := meanLuma(img)
		if luma > bestLuma {
			best, bestAt, bestLuma = img, at, luma
		}
		if luma >= darkLuma {
			break
		}
	}
	if best == nil {
		return nil, 0, firstErr
	}
	return best, bestAt, nil
}

// meanLuma is the mean Rec. 601 luma of img, 0-255, sampled on a grid.
func meanLuma(img *image.RGBA) float64 {
	b := img.Bounds()
	step := max(1, int(math.Sqrt(float64(b.Dx()*b.Dy())/4096)))
	var sum float64
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			i := img.PixOffset(x, y)
			p := img.Pix[i : i+3]
			sum += 0.299*float64(p[0]) + 0.587*float64(p[1]) + 0.114*float64(p[2])
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// SpriteInterval is the time between tiles of the sprite of a video of
// duration seconds: whole seconds, at least 1, so that at most spriteTiles
// tiles cover it.
func SpriteInterval(duration float64) float64 {
	return max(spriteMinInterval, math.Ceil(duration/spriteTiles))
}

// sprite writes sprite.jpg. One ffmpeg pass picks a frame every interval
// seconds (fps), scales it to a tile and pipes the tiles out as PNG; they
// are laid out here, so that the geometry is that of the frames really
// decoded (a video ends a little before its container says).
func (t *thumbnailer) sprite(ctx context.Context, in *extractors.Input, sar string, duration float64, res *extractors.Result) error {
	interval := SpriteInterval(duration)
	args := []string{"-nostdin", "-v", "error"}
	if interval >= keyframesOnlyFrom {
		args = append(args, "-skip_frame", "nokey")
	}
	args = append(args, av.InputArgs(in.Path)...)
	filter := fmt.Sprintf("%s,fps=1/%s,scale=w=%d:h=-2", squarePixels(sar), strconv.FormatFloat(interval, 'f', -1, 64), spriteTileWidth)
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", filter, "-frames:v", strconv.Itoa(spriteTiles),
		"-f", "image2pipe", "-c:v", "png", "-compression_level", "0", "-pix_fmt", "rgb24", "pipe:1")
	limit := spriteTiles * (spriteTileWidth*maxTileHeight*3 + 64<<10)
	out, err := t.run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true, MaxMemory: spriteMemory, MaxOutput: limit})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("sprite: ffmpeg: %w", err)
	}
	tiles, err := DecodePNGs(out, spriteTiles, spriteTileWidth, maxTileHeight)
	if err != nil {
		return fmt.Errorf("sprite: %w", err)
	}
	if len(tiles) == 0 {
		return errors.New("sprite: ffmpeg gave no frame")
	}
	sheet, columns, rows := Tile(tiles, spriteColumns)
	name := "sprite.jpg"
	if err := os.MkdirAll(in.ArtifactDir, 0o755); err != nil {
		return extractors.Transient(fmt.Errorf("artifact directory: %w", err))
	}
	if err := WriteJPEG(filepath.Join(in.ArtifactDir, name), sheet); err != nil {
		return err
	}
	tw, th := tiles[0].Bounds().Dx(), tiles[0].Bounds().Dy()
	res.Artifacts = append(res.Artifacts, extractors.Artifact{Path: name, Kind: "sprite", Width: sheet.Bounds().Dx(), Height: sheet.Bounds().Dy()})
	res.Data["sprite"] = map[string]any{"path": name, "type": "sprite", "width": sheet.Bounds().Dx(), "height": sheet.Bounds().Dy(),
		"tile_width": tw, "tile_height": th, "columns": columns, "rows": rows, "count": len(tiles), "interval": interval}
	return nil
}

// maxTileHeight bounds a tile of a very tall video (a 160-pixel-wide
// tile of a 1:10 strip).
const maxTileHeight = 1600

// DecodePNGs decodes the PNG pictures ffmpeg piped one after the other, at
// most max of them, each no larger than maxW x maxH and all of the size of
// the first.
func DecodePNGs(b []byte, max, maxW, maxH int) ([]image.Image, error) {
	var out []image.Image
	r := bytes.NewReader(b)
	for r.Len() > 0 && len(out) < max {
		start := r.Size() - int64(r.Len())
		cfg, err := png.DecodeConfig(r)
		if err != nil {
			return nil, fmt.Errorf("frame %d: %w", len(out), err)
		}
		if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxW || cfg.Height > maxH {
			return nil, fmt.Errorf("frame %d of %dx%d pixels", len(out), cfg.Width, cfg.Height)
		}
		if len(out) > 0 && (cfg.Width != out[0].Bounds().Dx() || cfg.Height != out[0].Bounds().Dy()) {
			return nil, fmt.Errorf("frame %d of %dx%d pixels after frames of %dx%d", len(out), cfg.Width, cfg.Height,
				out[0].Bounds().Dx(), out[0].Bounds().Dy())
		}
		if _, err := r.Seek(start, io.SeekStart); err != nil {
			return nil, err
		}
		img, err := png.Decode(r) // reads up to the IEND chunk, not beyond
		if err != nil {
			return nil, fmt.Errorf("frame %d: %w", len(out), err)
		}
		out = append(out, img)
	}
	return out, nil
}

// Tile lays tiles (all of one size) out left to right, top to bottom,
// columns at most per row, over black.
func Tile(tiles []image.Image, columns int) (sheet *image.RGBA, cols, rows int) {
	cols = min(columns, len(tiles))
	rows = (len(tiles) + cols - 1) / cols
	tw, th := tiles[0].Bounds().Dx(), tiles[0].Bounds().Dy()
	sheet = image.NewRGBA(image.Rect(0, 0, cols*tw, rows*th))
	draw.Draw(sheet, sheet.Bounds(), image.Black, image.Point{}, draw.Src)
	for i, tile := range tiles {
		at := image.Pt((i%cols)*tw, (i/cols)*th)
		draw.Draw(sheet, image.Rectangle{Min: at, Max: at.Add(image.Pt(tw, th))}, tile, tile.Bounds().Min, draw.Src)
	}
	return sheet, cols, rows
}
