package broadcast

// Colour bars have no ffmpeg detector: the pass sends scaled-down frames
// (frameWidth x frameHeight RGB, frameRate per second) to barsPattern,
// which recognises the layout every SMPTE and EBU bar chart shares (SMPTE
// ECR 1-1978 / RP 219 "smptebars", "smptehdbars", EBU Tech 3325 75% and
// 100% bars): vertical bands of saturated colours in falling luminance
// order, yellow, cyan, green, magenta, red, blue, side by side.
//
// The rule, on one frame:
//  1. Each pixel of the band region (rows 10%..50% of the height, where
//     every chart has its bars) is classed as one of the eight corners of
//     the RGB cube, or none: a channel is on at >= 60% of the pixel's
//     brightest channel, off at <= 35%, and anything between, or a pixel
//     whose brightest channel is under 80 of 255 (and not black), is
//     none. Bars at 75% or 100% amplitude class cleanly after any range
//     conversion and compression; natural pictures seldom do.
//  2. A column takes the class of at least 75% of its pixels in the
//     region (the bands are vertical), or none.
//  3. Runs of equal columns are formed. The frame shows bars when six
//     consecutive runs are yellow, cyan, green, magenta, red, blue (up
//     to two runs at most 2 columns wide may sit between two of them: the
//     blurred edges, where green and magenta mix to grey), each at least 2 columns wide and within half and twice
//     their median width, spanning together at least 40% of the width.
//  4. The chart is "ebu" when the same sequence is found in the bottom
//     region too (rows 80%..95%: EBU bars run the full height), and
//     "smpte" otherwise (SMPTE charts carry castellations and PLUGE
//     below the bars).
//
// Test patterns with the same colours in another order (ffmpeg's
// testsrc, testsrc2, rgbtestsrc) are not bars. See frames.go for how
// frames become time ranges.

// Colour classes: bit 2 red, bit 1 green, bit 0 blue; none is -1.
const (
	colNone    = -1
	colBlack   = 0
	colBlue    = 1
	colGreen   = 2
	colCyan    = 3
	colRed     = 4
	colMagenta = 5
	colYellow  = 6
)

// barOrder is the sequence of a bar chart, left to right.
var barOrder = [6]int{colYellow, colCyan, colGreen, colMagenta, colRed, colBlue}

// Bar chart kinds.
const (
	noBars    = ""
	smpteBars = "smpte"
	ebuBars   = "ebu"
)

// barsPattern says whether the w x h RGB frame (3 bytes a pixel, rows
// top to bottom) is a bar chart, and which kind. A frame of another size
// than w*h*3 bytes is not.
func barsPattern(pix []byte, w, h int) string {
	if w < 12 || h < 8 || w > 1<<12 || h > 1<<12 || len(pix) != w*h*3 {
		return noBars
	}
	if !hasBarSequence(pix, w, h*10/100, h*50/100) {
		return noBars
	}
	if hasBarSequence(pix, w, h*80/100, h*95/100) {
		return ebuBars
	}
	return smpteBars
}

// hasBarSequence applies steps 2 and 3 of the rule to rows [y0, y1).
func hasBarSequence(pix []byte, w, y0, y1 int) bool {
	if y1 <= y0 {
		return false
	}
	cols := make([]int, w)
	var counts [8]int
	for x := 0; x < w; x++ {
		counts = [8]int{}
		for y := y0; y < y1; y++ {
			i := (y*w + x) * 3
			if c := pixelClass(pix[i], pix[i+1], pix[i+2]); c != colNone {
				counts[c]++
			}
		}
		cols[x] = colNone
		for c, n := range counts {
			if n*4 >= (y1-y0)*3 {
				cols[x] = c
			}
		}
	}
	type run struct{ class, width int }
	var runs []run
	for _, c := range cols {
		if len(runs) > 0 && runs[len(runs)-1].class == c {
			runs[len(runs)-1].width++
		} else {
			runs = append(runs, run{c, 1})
		}
	}
	for start := range runs {
		if runs[start].class != barOrder[0] {
			continue
		}
		var widths []int
		span, k := 0, start
		for _, want := range barOrder {
			// Skip the blurred edge between two bands: up to two narrow
			// runs of mixed colours (green and magenta mix to grey).
			for skipped := 0; len(widths) > 0 && skipped < 2 && k < len(runs) &&
				runs[k].class != want && runs[k].width <= 2; skipped++ {
				span += runs[k].width
				k++
			}
			if k >= len(runs) || runs[k].class != want {
				break
			}
			widths = append(widths, runs[k].width)
			span += runs[k].width
			k++
		}
		if len(widths) == len(barOrder) && evenWidths(widths) && span*10 >= w*4 {
			return true
		}
	}
	return false
}

// evenWidths: every band at least 2 columns, within half and twice the
// median width.
func evenWidths(ws []int) bool {
	sorted := append([]int(nil), ws...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	med := sorted[len(sorted)/2]
	for _, v := range ws {
		if v < 2 || v*2 < med || v > med*2 {
			return false
		}
	}
	return true
}

// pixelClass is step 1 of the rule.
func pixelClass(r, g, b byte) int {
	hi := max(r, g, b)
	if hi < 40 {
		return colBlack
	}
	if hi < 80 {
		return colNone
	}
	class := 0
	for i, c := range [3]byte{r, g, b} {
		switch {
		case int(c)*100 >= int(hi)*60:
			class |= 4 >> i
		case int(c)*100 <= int(hi)*35:
		default:
			return colNone
		}
	}
	return class
}
