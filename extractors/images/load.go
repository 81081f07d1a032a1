package images

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"strconv"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
	"golang.org/x/sync/semaphore"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// Pictures are decoded only once their size is known and allowed: a header
// may declare 60000 x 60000 pixels in a few bytes (a pixel flood), and a
// decoder trusting it allocates gigabytes. JPEG, PNG, GIF and WebP are
// decoded by Go (the size is read first with DecodeConfig); every other
// format by ffmpeg, after ffprobe read its size, under a memory bound, its
// output scaled down before Go sees it.

const (
	// DefaultMaxPixels is the largest picture decoded (100 MP).
	DefaultMaxPixels = 100_000_000
	// defaultDecodeMemory is how much memory Go decodes of one Loader may
	// hold at once; a picture needing more than all of it waits for all of it.
	defaultDecodeMemory = 768 << 20
	// ffmpegImageMemory bounds ffmpeg decoding one picture.
	ffmpegImageMemory = 2 << 30
)

// ErrTooLarge is wrapped by the error for a picture over the pixel limit.
var ErrTooLarge = errors.New("picture over the pixel limit")

// Picture is a decoded picture, turned upright and scaled down.
type Picture struct {
	// Image is upright (EXIF orientation applied) and at most the asked
	// long side; transparent areas are composed over white.
	Image *image.RGBA
	// Width and Height are those of the stored picture, before orientation
	// and scaling.
	Width, Height int
	// Orientation is the EXIF orientation applied (1 when none).
	Orientation int
	// Format is "jpeg", "png", "gif", "webp", or ffmpeg's codec name.
	Format string
	// Decoder is "go" or "ffmpeg".
	Decoder string
}

// Loader decodes pictures safely; one per extractor, shared by its
// harvests.
type Loader struct {
	run       *extractors.Runner
	maxPixels int64
	mem       *semaphore.Weighted
	memMax    int64
}

// NewLoader returns a Loader refusing pictures over maxPixels (<= 0:
// DefaultMaxPixels); ffmpeg runs through run.
func NewLoader(run *extractors.Runner, maxPixels int64) *Loader {
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	return &Loader{run: run, maxPixels: maxPixels, mem: semaphore.NewWeighted(defaultDecodeMemory), memMax: defaultDecodeMemory}
}

// MaxPixels is the largest picture the Loader decodes.
func (l *Loader) MaxPixels() int64 { return l.maxPixels }

// Load decodes the picture at path, upright, with its long side scaled
// down to at most maxSide pixels.
func (l *Loader) Load(ctx context.Context, path string, maxSide int) (*Picture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("open picture: %w", err))
	}
	defer f.Close()
	return l.load(ctx, f, path, maxSide)
}

// load decodes the picture r (the file at path, which ffmpeg reads when Go
// does not decode its format).
func (l *Loader) load(ctx context.Context, r io.ReadSeeker, path string, maxSide int) (*Picture, error) {
	var head [16]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, extractors.Transient(fmt.Errorf("read picture: %w", err))
	}
	if n == 0 {
		return nil, errors.New("empty file")
	}
	format := sniff(head[:n])
	if format == "" {
		return l.loadFFmpeg(ctx, path, maxSide)
	}
	return l.loadGo(ctx, r, format, maxSide)
}

// sniff names the formats Go decodes from their first bytes; "" for others.
func sniff(b []byte) string {
	switch {
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return "jpeg"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a")):
		return "gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

var decoders = map[string]struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}{
	"jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"png":  {png.DecodeConfig, png.Decode},
	"gif":  {gif.DecodeConfig, gif.Decode},
	"webp": {webp.DecodeConfig, webp.Decode},
}

func (l *Loader) loadGo(ctx context.Context, f io.ReadSeeker, format string, maxSide int) (*Picture, error) {
	dec := decoders[format]
	rewind := func() (io.Reader, error) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, extractors.Transient(fmt.Errorf("read picture: %w", err))
		}
		return bufio.NewReaderSize(f, 64<<10), nil
	}
	r, err := rewind()
	if err != nil {
		return nil, err
	}
	cfg, err := dec.config(r)
	if err != nil {
		return nil, fmt.Errorf("read %s header: %w", format, err)
	}
	if err := l.check(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	orientation := 1
	if format == "jpeg" {
		if r, err = rewind(); err != nil {
			return nil, err
		}
		orientation = JPEGOrientation(r)
	}

	// What the decoder holds: up to 8 bytes a pixel (16-bit PNG), 4 for
	// most, and the downscaled copy is small next to it.
	need := int64(cfg.Width) * int64(cfg.Height) * bytesPerPixel(cfg.ColorModel)
	need = min(max(need, 1), l.memMax)
	if err := l.mem.Acquire(ctx, need); err != nil {
		return nil, fmt.Errorf("wait for decode memory: %w", err)
	}
	defer l.mem.Release(need)
	if r, err = rewind(); err != nil {
		return nil, err
	}
	src, err := dec.decode(r)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", format, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	img := Orient(Fit(src, maxSide), orientation)
	return &Picture{Image: img, Width: cfg.Width, Height: cfg.Height, Orientation: orientation, Format: format, Decoder: "go"}, nil
}

func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model:
		return 2
	}
	return 4
}

func (l *Loader) check(w, h int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("picture of %dx%d pixels", w, h)
	}
	if int64(w)*int64(h) > l.maxPixels {
		return fmt.Errorf("%w: %dx%d pixels, at most %d", ErrTooLarge, w, h, l.maxPixels)
	}
	return nil
}

// Fit scales src down (never up) so that its long side is at most maxSide,
// over a white background, into a new RGBA image at the origin.
func Fit(src image.Image, maxSide int) *image.RGBA {
	b := src.Bounds()
	w, h := FitSize(b.Dx(), b.Dy(), maxSide)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	if w == b.Dx() && h == b.Dy() {
		draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Over)
		return dst
	}
	// A large reduction in one Catmull-Rom pass reads every source pixel
	// with a wide kernel; halving with a cheap filter first down to twice
	// the target costs a fraction and looks the same.
	if b.Dx() > 4*w && b.Dy() > 4*h {
		mid := image.NewRGBA(image.Rect(0, 0, 2*w, 2*h))
		draw.Draw(mid, mid.Bounds(), image.White, image.Point{}, draw.Src)
		draw.ApproxBiLinear.Scale(mid, mid.Bounds(), src, b, draw.Over, nil)
		src, b = mid, mid.Bounds()
	}
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Over, nil)
	return dst
}

// FitSize is the size of a w x h picture scaled down to a long side of at
// most maxSide (at least 1 x 1).
func FitSize(w, h, maxSide int) (int, int) {
	if maxSide <= 0 || (w <= maxSide && h <= maxSide) {
		return w, h
	}
	if w >= h {
		return maxSide, max(1, int(int64(h)*int64(maxSide)/int64(w)))
	}
	return max(1, int(int64(w)*int64(maxSide)/int64(h))), maxSide
}

// loadFFmpeg decodes a format Go does not (TIFF, BMP, AVIF, PSD...): ffprobe
// reads its size, then ffmpeg decodes it scaled down to PNG on its
// standard output.
func (l *Loader) loadFFmpeg(ctx context.Context, path string, maxSide int) (*Picture, error) {
	args := append([]string{"-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,codec_name", "-of", "json"},
		av.InputArgs(path)...)
	out, err := l.run.Run(ctx, extractors.Cmd{Name: "ffprobe", Args: args, MaxOutput: 64 << 10, MaxMemory: 1 << 30})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("picture not readable: %w", err)
	}
	size, err := ParseProbeSize(out)
	if err != nil {
		return nil, err
	}
	if err := l.check(size.Width, size.Height); err != nil {
		return nil, err
	}
	png, err := FFmpegPNG(ctx, l.run, nil, path, FitFilter(maxSide), maxSide)
	if err != nil {
		return nil, err
	}
	img, err := DecodePNG(png, maxSide)
	if err != nil {
		return nil, err
	}
	return &Picture{Image: img, Width: size.Width, Height: size.Height, Orientation: 1, Format: size.Codec, Decoder: "ffmpeg"}, nil
}

// FitFilter is the ffmpeg filter that scales a picture down (never up) to
// a long side of at most maxSide.
func FitFilter(maxSide int) string {
	return fmt.Sprintf("scale=w='min(%d,iw)':h='min(%d,ih)':force_original_aspect_ratio=decrease", maxSide, maxSide)
}

// ProbeSize is the first video stream of ffprobe's answer.
type ProbeSize struct {
	Width, Height int
	Codec         string
}

// ParseProbeSize reads ffprobe -show_entries stream=width,height,codec_name
// -of json.
func ParseProbeSize(out []byte) (ProbeSize, error) {
	var v struct {
		Streams []struct {
			Width     int    `json:"width"`
			Height    int    `json:"height"`
			CodecName string `json:"codec_name"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return ProbeSize{}, fmt.Errorf("read ffprobe output: %w", err)
	}
	if len(v.Streams) == 0 {
		return ProbeSize{}, fmt.Errorf("no picture in the file: %w", extractors.ErrUnsupported)
	}
	s := v.Streams[0]
	if s.Width <= 0 || s.Height <= 0 {
		// ffmpeg gives 0 x 0 for a size it finds invalid (a header
		// declaring 60000 x 60000): a bad file, not another kind of file.
		return ProbeSize{}, fmt.Errorf("picture size not readable (%dx%d)", s.Width, s.Height)
	}
	return ProbeSize{Width: s.Width, Height: s.Height, Codec: doctext.Cut(s.CodecName, 64)}, nil
}

// FFmpegPNG runs ffmpeg on the first video stream of path (after seeking
// to *seek seconds when seek is not nil) through filter and returns one
// frame as PNG, at most maxSide on its long side (its output is bounded
// accordingly). ffmpeg opens nothing but the file (av.InputArgs).
func FFmpegPNG(ctx context.Context, run *extractors.Runner, seek *float64, path, filter string, maxSide int) ([]byte, error) {
	args := []string{"-nostdin"}
	if seek != nil {
		args = append(args, "-ss", strconv.FormatFloat(*seek, 'f', 3, 64))
	}
	args = append(args, av.InputArgs(path)...)
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", filter)
	return ffmpegFrame(ctx, run, args, "rgb24", maxSide)
}

// ffmpegFrame runs ffmpeg with args (its input and what it maps and
// filters) for one frame of at most maxSide on its long side, written as
// PNG of pixel format pixFmt (rgb24, or rgba for a picture with
// transparent parts) to its output, which is bounded accordingly.
func ffmpegFrame(ctx context.Context, run *extractors.Runner, args []string, pixFmt string, maxSide int) ([]byte, error) {
	args = append(args, "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-compression_level", "0", "-pix_fmt", pixFmt, "pipe:1")
	limit := maxSide*maxSide*4 + maxSide*16 + 1<<20 // raw RGBA at worst, plus headers
	out, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true, MaxMemory: ffmpegImageMemory, MaxOutput: limit})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("ffmpeg: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("ffmpeg gave no picture")
	}
	return out, nil
}

// DecodePNG decodes a PNG made by ffmpeg, refusing one larger than maxSide
// on either side (ffmpeg was asked for less).
func DecodePNG(b []byte, maxSide int) (*image.RGBA, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("read ffmpeg picture: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxSide+2 || cfg.Height > maxSide+2 {
		return nil, fmt.Errorf("ffmpeg picture of %dx%d pixels, asked for at most %d", cfg.Width, cfg.Height, maxSide)
	}
	src, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("read ffmpeg picture: %w", err)
	}
	return Fit(src, maxSide), nil
}
