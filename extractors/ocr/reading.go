package ocr

import (
	"math"
	"strings"
	"unicode"
)

// Confidence thresholds (tesseract's word confidence, 0..100). Clean
// print reads at 85 and more; what tesseract makes of textures, faces and
// edges mostly stays below 40.
const (
	// textConfidence: words of pictures and pages below it are left out
	// of the text (they are noise far more often than words).
	textConfidence = 40
	// frameConfidence: the same for video frames, which are busier
	// pictures than scans.
	frameConfidence = 60
	// minFrameChars: a frame has text when its kept words hold at least
	// this many letters and digits, in words of at least two.
	minFrameChars = 4
)

// reading is what one picture said, kept words only.
type reading struct {
	// Text is the kept words: a line per line of text, a blank line
	// between blocks and paragraphs.
	Text string
	// Words kept, Lines holding them, and their mean confidence (0 when
	// none).
	Words      int
	Lines      int
	Confidence float64
	// Chars counts the letters and digits of the kept words of two or
	// more of them (what makes a frame a frame with text).
	Chars int
}

// summarize keeps the words of rec of at least minConf and lays them out.
func summarize(rec *Recognition, minConf float64) reading {
	var r reading
	var b strings.Builder
	sum := 0.0
	for _, p := range rec.Pages {
		prevBlock, prevPar := -1, -1
		for _, l := range p.Lines {
			var kept []string
			for _, w := range l.Words {
				if w.Confidence < minConf {
					continue
				}
				kept = append(kept, w.Text)
				sum += w.Confidence
				if n := alnum(w.Text); n >= 2 {
					r.Chars += n
				}
			}
			if len(kept) == 0 {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
				if l.Block != prevBlock || l.Paragraph != prevPar {
					b.WriteByte('\n')
				}
			}
			prevBlock, prevPar = l.Block, l.Paragraph
			b.WriteString(strings.Join(kept, " "))
			r.Words += len(kept)
			r.Lines++
		}
	}
	r.Text = b.String()
	if r.Words > 0 {
		r.Confidence = round1(sum / float64(r.Words))
	}
	return r
}

// hasText says whether a frame's reading counts as text on screen.
func (r reading) hasText() bool { return r.Chars >= minFrameChars }

// alnum counts the letters and digits of s.
func alnum(s string) int {
	n := 0
	for _, c := range s {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			n++
		}
	}
	return n
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }
