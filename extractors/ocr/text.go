package ocr

import (
	"math"
	"strings"

	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// maxText is the most text tesseract reports for one item, in bytes of
// UTF-8: the search document indexes 256 KiB of text per item, so more
// would be stored and never found.
const maxText = 256 << 10

// textBuilder collects text up to a cap, cut on a rune boundary, and says
// whether anything was left out.
type textBuilder struct {
	b         strings.Builder
	max       int
	truncated bool
}

func newTextBuilder(max int) *textBuilder { return &textBuilder{max: max} }

// add appends s after sep (sep is left out before the first text).
func (t *textBuilder) add(sep, s string) {
	if s == "" {
		return
	}
	if t.b.Len() > 0 {
		s = sep + s
	}
	room := t.max - t.b.Len()
	if len(s) > room {
		t.truncated = true
		s = doctext.Cut(s, room)
	}
	t.b.WriteString(s)
}

func (t *textBuilder) String() string { return t.b.String() }

// round3 rounds seconds to milliseconds, the precision times are stored at.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
