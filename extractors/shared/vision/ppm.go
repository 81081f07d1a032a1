package vision

import (
	"context"
	"fmt"
	"image"
	"os"
	"strconv"

	"github.com/metaharvest/metaharvest/extractors"
)

// MaxSide is the largest side of a picture the sidecar reads.
const MaxSide = 2048

// RGB returns the RGB bytes of img (its bounds), for WritePPM.
func RGB(img *image.RGBA) []byte {
	b := img.Bounds()
	out := make([]byte, 0, b.Dx()*b.Dy()*3)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):]
		for x := 0; x < b.Dx(); x++ {
			out = append(out, row[4*x], row[4*x+1], row[4*x+2])
		}
	}
	return out
}

// WritePPM writes rgb (w x h pixels) as a binary PPM file in dir and
// returns its path; the caller removes it. The sidecar reads only such
// files, written here from pictures the worker decoded itself.
func WritePPM(dir string, rgb []byte, w, h int) (string, error) {
	if w < 1 || h < 1 || w > MaxSide || h > MaxSide || len(rgb) != w*h*3 {
		return "", fmt.Errorf("vision picture of %d bytes for %dx%d pixels (at most %d a side)", len(rgb), w, h, MaxSide)
	}
	f, err := os.CreateTemp(dir, "*.ppm")
	if err != nil {
		return "", extractors.Transient(fmt.Errorf("vision picture file: %w", err))
	}
	_, err = f.WriteString("P6\n" + strconv.Itoa(w) + " " + strconv.Itoa(h) + "\n255\n")
	if err == nil {
		_, err = f.Write(rgb)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", extractors.Transient(fmt.Errorf("vision picture file: %w", err))
	}
	return f.Name(), nil
}

// AskPicture writes rgb (w x h pixels) as a PPM in dir, asks the pool
// req about it (its Path set here) and removes the file.
func (p *Pool) AskPicture(ctx context.Context, dir string, rgb []byte, w, h int, req Request) (Answer, error) {
	path, err := WritePPM(dir, rgb, w, h)
	if err != nil {
		return Answer{}, err
	}
	defer os.Remove(path)
	req.Path = path
	return p.Ask(ctx, req)
}
