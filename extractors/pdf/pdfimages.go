package pdf

import (
	"strconv"
	"strings"
)

// pageImages is what `pdfimages -list` says of the images of one page.
type pageImages struct {
	count int
	// area is the area the images cover in square points, from their pixel
	// size and their resolution on the page (x-ppi, y-ppi).
	area float64
}

// parsePDFImages reads `pdfimages -list` output: two header lines, then
// one line per image: page num type width height color comp bpc enc
// interp object ID x-ppi y-ppi size ratio. Masks are not images of their
// own and are skipped.
func parsePDFImages(out string) map[int]pageImages {
	pages := map[int]pageImages{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 14 || f[2] != "image" {
			continue
		}
		page, err := strconv.Atoi(f[0])
		if err != nil || page < 1 {
			continue
		}
		w, err1 := strconv.ParseFloat(f[3], 64)
		h, err2 := strconv.ParseFloat(f[4], 64)
		xppi, err3 := strconv.ParseFloat(f[12], 64)
		yppi, err4 := strconv.ParseFloat(f[13], 64)
		p := pages[page]
		p.count++
		if err1 == nil && err2 == nil && err3 == nil && err4 == nil && xppi > 0 && yppi > 0 && w > 0 && h > 0 {
			p.area += (w / xppi * 72) * (h / yppi * 72)
		}
		pages[page] = p
	}
	return pages
}
