package ocr

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// tsvHeader is the first line of tesseract's TSV output (tesseract 4 and 5).
const tsvHeader = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"

// TSV levels: a row describes a page, a block, a paragraph, a line or a word.
const (
	levelPage = 1
	levelWord = 5
)

// maxTSVWords bounds the words ParseTSV keeps: a page of small print holds
// a few thousand; tesseract's output is bounded by the Runner anyway, this
// bounds what one parse allocates whatever it is given.
const maxTSVWords = 100_000

// Recognition is what tesseract read in one image: its pages (one, unless
// the image is a multi-page TIFF read whole) with their lines of words.
type Recognition struct {
	Pages []Page `json:"pages"`
	// Truncated is set when the input held more than maxTSVWords words.
	Truncated bool `json:"truncated,omitempty"`
}

// Page is one page of a Recognition, with its size in pixels.
type Page struct {
	Number int    `json:"number"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Lines  []Line `json:"lines"`
}

// Line is a line of text as tesseract segmented it; Block and Paragraph
// say where it belongs, so that text can be laid out again.
type Line struct {
	Block     int    `json:"block"`
	Paragraph int    `json:"paragraph"`
	Words     []Word `json:"words"`
}

// Word is one recognised word: its text, tesseract's confidence (0..100)
// and its box in pixels.
type Word struct {
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"`
	Left       int     `json:"left"`
	Top        int     `json:"top"`
	Width      int     `json:"width"`
	Height     int     `json:"height"`
}

// ParseTSV reads tesseract's TSV output (`tesseract IMG - tsv`). Rows of
// levels 2 to 4 only open blocks, paragraphs and lines; words (level 5)
// are kept when their text is not blank, grouped into lines by their
// block, paragraph and line numbers. A row that does not have the twelve
// columns with numbers where numbers go is an error: the output is not
// tesseract's, or not whole.
func ParseTSV(data []byte) (*Recognition, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rest := data
	next := func() (string, bool) {
		if len(rest) == 0 {
			return "", false
		}
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		return strings.TrimSuffix(string(line), "\r"), true
	}
	head, ok := next()
	if !ok || head != tsvHeader {
		return nil, errors.New("not tesseract TSV output: no header line")
	}
	rec := &Recognition{}
	var page *Page
	type lineKey struct{ block, par, line int }
	var cur lineKey
	words := 0
	for n := 2; ; n++ {
		row, ok := next()
		if !ok {
			break
		}
		if row == "" {
			continue
		}
		cols := strings.SplitN(row, "\t", 12)
		if len(cols) != 12 {
			return nil, fmt.Errorf("tsv line %d: %d columns, want 12", n, len(cols))
		}
		var num [10]int
		for i := range num {
			v, err := strconv.Atoi(cols[i])
			if err != nil || v < 0 {
				return nil, fmt.Errorf("tsv line %d: column %d is %q, not a count", n, i+1, clip(cols[i], 20))
			}
			num[i] = v
		}
		level, pageNum := num[0], num[1]
		key := lineKey{num[2], num[3], num[4]}
		switch {
		case level == levelPage:
			rec.Pages = append(rec.Pages, Page{Number: pageNum, Width: num[8], Height: num[9]})
			page = &rec.Pages[len(rec.Pages)-1]
			cur = lineKey{-1, -1, -1}
			continue
		case level < levelPage || level > levelWord:
			return nil, fmt.Errorf("tsv line %d: level %d", n, level)
		case page == nil || pageNum != page.Number:
			return nil, fmt.Errorf("tsv line %d: row of page %d outside its page", n, pageNum)
		case level != levelWord:
			continue
		}
		conf, err := strconv.ParseFloat(cols[10], 64)
		if err != nil || conf > 100 || conf < -1 || conf != conf {
			return nil, fmt.Errorf("tsv line %d: confidence %q", n, clip(cols[10], 20))
		}
		text := strings.TrimSpace(cleanText(cols[11]))
		if text == "" {
			continue
		}
		if words == maxTSVWords {
			rec.Truncated = true
			break
		}
		words++
		if key != cur || len(page.Lines) == 0 {
			page.Lines = append(page.Lines, Line{Block: key.block, Paragraph: key.par})
			cur = key
		}
		l := &page.Lines[len(page.Lines)-1]
		l.Words = append(l.Words, Word{Text: text, Confidence: max(conf, 0),
			Left: num[6], Top: num[7], Width: num[8], Height: num[9]})
	}
	return rec, nil
}

// cleanText makes s valid UTF-8 without control characters (a tab or a
// line break inside a word would break the layout of the text).
func cleanText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
