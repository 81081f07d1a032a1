package broadcast

import (
	"fmt"
	"os/exec"
	"testing"
)

// sampleOf renders the first frame of an ffmpeg source (a lavfi graph, or
// a file) the way the pass samples video.
func sampleOf(t *testing.T, src ...string) []byte {
	t.Helper()
	args := append([]string{"-nostdin", "-v", "error"}, src...)
	args = append(args, "-vf", samplesFilter, "-frames:v", "1", "-f", "rawvideo", "-")
	out, err := exec.Command("ffmpeg", args...).Output()
	if err != nil || len(out) != frameBytes {
		t.Fatalf("ffmpeg %v: %v, %d bytes", src, err, len(out))
	}
	return out
}

func lavfi(graph string) []string { return []string{"-f", "lavfi", "-i", graph} }

func TestBarsPattern(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src  []string
		want string
	}{
		{lavfi("smptebars=s=320x240"), smpteBars},
		{lavfi("smptebars=s=1920x1080"), smpteBars},
		{lavfi("smptehdbars=s=1920x1080"), smpteBars},
		{lavfi("smptehdbars=s=720x576"), smpteBars},
		{lavfi("pal75bars=s=720x576"), ebuBars},
		{lavfi("pal100bars=s=1280x720"), ebuBars},
		// Bars with a station logo and noise laid over them.
		{lavfi("smptebars=s=640x480,drawbox=x=20:y=20:w=120:h=60:c=white:t=fill,noise=alls=12:allf=t"), smpteBars},
		// Colourful patterns that are not bar charts.
		{lavfi("testsrc=s=320x240"), noBars},
		{lavfi("testsrc2=s=320x240"), noBars},
		{lavfi("rgbtestsrc=s=320x240"), noBars},
		{lavfi("yuvtestsrc=s=320x240"), noBars},
		{lavfi("mandelbrot=s=320x240"), noBars},
		{lavfi("color=black:s=320x240"), noBars},
		{lavfi("color=white:s=320x240"), noBars},
		// Bars turned round, and mirrored: the order matters.
		{lavfi("smptebars=s=320x240,transpose=1"), noBars},
		{lavfi("smptebars=s=320x240,hflip"), noBars},
		// A real picture full of saturated yellow, red and blue.
		{[]string{"-i", "testdata/mp4.mp4"}, noBars},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.src[len(c.src)-1]), func(t *testing.T) {
			t.Parallel()
			if got := barsPattern(sampleOf(t, c.src...), frameWidth, frameHeight); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestPixelClass(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r, g, b byte
		want    int
	}{
		{191, 191, 0, colYellow}, {0, 191, 191, colCyan}, {0, 191, 0, colGreen}, {191, 0, 191, colMagenta},
		{191, 0, 0, colRed}, {0, 0, 191, colBlue}, {255, 255, 255, 7}, {10, 10, 10, colBlack},
		{60, 60, 60, colNone}, {191, 100, 0, colNone}, {240, 200, 180, 7},
	} {
		if got := pixelClass(c.r, c.g, c.b); got != c.want {
			t.Errorf("pixelClass(%d,%d,%d) = %d, want %d", c.r, c.g, c.b, got, c.want)
		}
	}
}

func TestSampleRanges(t *testing.T) {
	t.Parallel()
	b, d, p := sampleInfo{bars: smpteBars, still: true}, sampleInfo{dark: true, still: true}, sampleInfo{}
	s := sampleInfo{still: true}
	e := sampleInfo{bars: ebuBars, still: true}
	// 0-2 s bars, a single bars sample (too short), 1.5 s still card,
	// a moving picture, a 0.75 s still (too short), black, ebu bars to
	// the end of a file ending at 6.1 s.
	seq := []sampleInfo{b, b, b, b, b, b, b, b, p, b, p, p, p, s, s, s, s, s, p, s, s, d, d, e, e, e}
	bars := barsRanges(seq, 6.1)
	want := []BarsRange{{Range{0, 2}, smpteBars}, {Range{5.75, 6.1}, ebuBars}}
	if len(bars) != 1 || bars[0] != want[0] {
		t.Errorf("bars %v", bars)
	}
	stills := stillRanges(seq, 6.1)
	if len(stills) != 1 || stills[0] != (Range{3, 4.5}) {
		t.Errorf("stills %v", stills)
	}
	if got := barsRanges(seq, 7); len(got) != 2 || got[1] != (BarsRange{Range{5.75, 6.5}, ebuBars}) {
		t.Errorf("bars to 7 s: %v", got)
	}
}

// FuzzBarsPattern feeds the frame analysis pictures tiled from a small
// fuzzed pattern (small inputs keep the fuzzer fast), and odd sizes.
func FuzzBarsPattern(f *testing.F) {
	f.Add([]byte{191, 191, 0, 0, 191, 191, 0, 191, 0}, 96, 48, 1000)
	f.Add([]byte{0}, 2, 1, 7)
	f.Fuzz(func(t *testing.T, cells []byte, w, h, n int) {
		_ = barsPattern(cells, w, h)
		if len(cells) == 0 {
			return
		}
		if w >= 12 && w <= 256 && h >= 8 && h <= 128 {
			pix := make([]byte, w*h*3)
			for i := range pix {
				pix[i] = cells[(i/max(n%97, 1))%len(cells)]
			}
			_ = barsPattern(pix, w, h)
		}
		// The sink, fed any number of bytes in pieces of any size.
		total := (n%(4*frameBytes) + 4*frameBytes) % (4 * frameBytes)
		stream := make([]byte, total)
		for i := range stream {
			stream[i] = cells[i%len(cells)]
		}
		sink := newFrameSink(3)
		for piece := max(len(cells), 1); len(stream) > 0; {
			k := min(piece, len(stream))
			sink.Write(stream[:k])
			stream = stream[k:]
		}
		if len(sink.samples) > 3 || len(sink.samples)+sink.dropped != total/frameBytes {
			t.Fatalf("%d samples, %d dropped of %d bytes", len(sink.samples), sink.dropped, total)
		}
	})
}
