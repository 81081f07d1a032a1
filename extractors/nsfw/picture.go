package nsfw

import (
	"context"
	"image"

	"golang.org/x/image/draw"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/vision"
)

// The sidecar reads only binary PPM files of side x side pixels written
// here: the worker decodes every picture itself (images.Loader: its pixel
// limit checked before decoding, EXIF orientation, transparency over
// white), so node never parses a file a user made.

const (
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

// classifyRGB asks the sidecar about rgb (side x side pixels), written
// as a PPM file.
func (x *nsfw) classifyRGB(ctx context.Context, rgb []byte) (Scores, error) {
	a, err := x.client.AskPicture(ctx, x.tmp, rgb, x.side, x.side, vision.Request{Task: vision.TaskNSFW, Model: x.model})
	if err != nil {
		return nil, err
	}
	s, err := ParseScores(a.Scores)
	if err != nil {
		// An answer without usable scores: the process is out of step.
		return nil, extractors.Transient(err)
	}
	return s, nil
}
