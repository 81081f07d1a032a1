package nsfw

import (
	"context"
	"fmt"
	"image"
	"os"
	"strconv"

	"golang.org/x/image/draw"

	"github.com/metaharvest/metaharvest/extractors"
)

// The sidecar reads only binary PPM files of side x side pixels written
// here: the worker decodes every picture itself (images.Loader: its pixel
// limit checked before decoding, EXIF orientation, transparency over
// white), so node never parses a file a user made.

const (
	// minSide and maxSide bound the picture size a sidecar may ask for
	// (nsfwjs's models take 224 or 299).
	minSide = 32
	maxSide = 1024
	// loadSide is how many times the model's side a picture is decoded
	// at before being squeezed to it: enough for a clean reduction.
	loadSide = 2
)

// modelSides are the models of nsfwjs and the picture side each takes.
var modelSides = map[string]int{"MobileNetV2": 224, "MobileNetV2Mid": 224, "InceptionV3": 299}

// squeeze scales img to side x side pixels, as nsfwjs does with a
// picture of another shape (the aspect is not kept: the model was trained
// so), and returns its RGB bytes.
func squeeze(img image.Image, side int) []byte {
	dst := image.NewRGBA(image.Rect(0, 0, side, side))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	rgb := make([]byte, 0, side*side*3)
	for i := 0; i < len(dst.Pix); i += 4 {
		rgb = append(rgb, dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2])
	}
	return rgb
}

// classifyRGB writes rgb (side x side pixels) as a PPM file in dir, asks
// the pool about it and removes it.
func (x *nsfw) classifyRGB(ctx context.Context, rgb []byte) (Scores, error) {
	side := x.side
	if len(rgb) != side*side*3 {
		return nil, fmt.Errorf("picture of %d bytes, want %d", len(rgb), side*side*3)
	}
	f, err := os.CreateTemp(x.tmp, "*.ppm")
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("nsfw picture file: %w", err))
	}
	defer os.Remove(f.Name())
	head := "P6\n" + strconv.Itoa(side) + " " + strconv.Itoa(side) + "\n255\n"
	_, err = f.WriteString(head)
	if err == nil {
		_, err = f.Write(rgb)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("nsfw picture file: %w", err))
	}
	return x.pool.Classify(ctx, f.Name())
}
