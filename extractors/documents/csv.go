package documents

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "csv",
		DisplayName:    "CSV",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptCSV,
		Fields: []extractors.Field{
			{Path: "delimiter", Type: extractors.TypeString, Doc: `detected field delimiter: ",", ";", tab or "|"`},
			{Path: "has_header", Type: extractors.TypeBool, Doc: "true when the first row names the columns"},
			{Path: "columns", Type: extractors.TypeString, Doc: "column names from the header row (at most 200)"},
			{Path: "column_count", Type: extractors.TypeNumber, Doc: "fields in most rows"},
			{Path: "row_count", Type: extractors.TypeNumber, Doc: "data rows in the whole file, header excluded"},
			{Path: "sample_rows", Type: extractors.TypeText, Doc: "the first data rows (at most 5), as lists of cells"},
			{Path: "encoding", Type: extractors.TypeString, Doc: "detected encoding of the file"},
			{Path: "text", Type: extractors.TypeText, Doc: "cells of the first rows, tab-separated, at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the file holds more text than was kept"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) { return csvExtractor{}, nil },
	})
}

func acceptCSV(f extractors.File) bool {
	return extractors.AcceptMIME([]string{"text/csv", "text/tab-separated-values"}, "csv", "tsv", "tab")(f)
}

// Caps of the csv extractor. Rows are counted over the whole file by a
// scanner that keeps no field; only the start of the file is parsed into
// cells (a quoted field never closed would otherwise grow without end).
const (
	csvParseBytes  = 1 << 20 // decoded bytes parsed into cells (text, sample)
	csvSniffBytes  = 64 << 10
	csvSniffRows   = 50
	csvSampleRows  = 5
	csvMaxColumns  = 200
	csvMaxCellText = 256
)

var csvDelimiters = []rune{',', ';', '\t', '|'}

type csvExtractor struct{}

func (csvExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	r, enc, f, err := openText(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(r, csvSniffBytes)
	head, err := br.Peek(csvSniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, doctext.ReadErr(in.Name, err)
	}
	if doctext.LooksBinary(string(head)) {
		return nil, errors.New("not a text file")
	}
	sniff := sniffCSV(string(head), len(head) == csvSniffBytes)
	// The start of the file into cells; the rows of the rest are counted.
	text := doctext.NewBuilder(doctext.MaxText)
	data := map[string]any{"delimiter": string(sniff.delimiter), "has_header": sniff.header, "encoding": enc.Name}
	if sniff.columns > 0 {
		data["column_count"] = sniff.columns
	}
	parsed := &doctext.Counter{R: io.LimitReader(br, csvParseBytes)}
	cr := csv.NewReader(parsed)
	cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord = sniff.delimiter, true, -1
	var rows int64
	var sample []any
	scanner := &csvRowCounter{comma: byte(sniff.delimiter)}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				continue // a malformed row: skipped, the next one is read
			}
			return nil, doctext.ReadErr(in.Name, err)
		}
		if parsed.N >= csvParseBytes {
			// This record may be cut by the parse cap: the scanner counts
			// it again with the rest.
			break
		}
		if rows == 0 && sniff.header {
			data["columns"] = clipCells(rec, csvMaxColumns)
			if len(rec) > sniff.columns {
				// Later columns are optional: the header names them all.
				data["column_count"] = len(rec)
			}
		} else if len(sample) < csvSampleRows {
			sample = append(sample, clipCells(rec, csvMaxColumns))
		}
		rows++
		if !text.Full() {
			text.Separate("\n")
			text.WriteString(strings.Join(rec, "\t"))
		} else {
			text.MarkTruncated()
		}
		scanner.offset = cr.InputOffset()
	}
	if parsed.N >= csvParseBytes {
		// Count the rows from the end of the last whole record on: the part
		// of the parsed bytes after it, then the rest of the stream.
		text.MarkTruncated()
		rest, err := countRest(ctx, scanner, in, enc)
		if err != nil {
			return nil, err
		}
		rows += rest
	}
	if sniff.header && rows > 0 {
		rows--
	}
	data["row_count"] = rows
	if len(sample) > 0 {
		data["sample_rows"] = sample
	}
	text.Put(data)
	return &extractors.Result{Data: data}, nil
}

// countRest reopens the item and counts the records after scanner.offset
// decoded bytes (csv.Reader's InputOffset after the last whole record).
func countRest(ctx context.Context, scanner *csvRowCounter, in *extractors.Input, enc doctext.Detected) (int64, error) {
	r, _, f, err := openText(in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := io.CopyN(io.Discard, r, scanner.offset); err != nil {
		return 0, doctext.ReadErr(in.Name, err)
	}
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, err := r.Read(buf)
		scanner.scan(buf[:n])
		if errors.Is(err, io.EOF) {
			return scanner.finish(), nil
		}
		if err != nil {
			return 0, doctext.ReadErr(in.Name, err)
		}
	}
}

func clipCells(rec []string, max int) []any {
	if len(rec) > max {
		rec = rec[:max]
	}
	out := make([]any, len(rec))
	for i, c := range rec {
		out[i] = doctext.Clip(c, csvMaxCellText)
	}
	return out
}

// csvRowCounter counts CSV records in a stream without keeping fields, by
// the rules of encoding/csv with LazyQuotes: a quote opens a quoted field
// only at the start of a field; inside one, a doubled quote is a quote, a
// quote before a delimiter or the end of the line closes it, and any
// other quote is kept as text (the field goes on); a newline outside
// quotes ends a record, and empty lines are no record.
type csvRowCounter struct {
	comma   byte
	offset  int64 // decoded bytes already counted by the parser
	records int64
	quoted  bool // inside a quoted field
	quote   bool // just saw a quote inside a quoted field
	quoteCR bool // just saw a quote and a carriage return inside one
	start   bool // at the start of a field
	content bool // the current record has content
	begun   bool
}

func (c *csvRowCounter) scan(p []byte) {
	if !c.begun {
		c.begun, c.start = true, true
	}
	for _, b := range p {
		if c.quoted {
			c.inQuotes(b)
			continue
		}
		c.plain(b)
	}
}

// inQuotes handles a byte inside a quoted field.
func (c *csvRowCounter) inQuotes(b byte) {
	switch {
	case c.quoteCR:
		c.quoteCR = false
		if b == '\n' { // `"\r\n`: the field and the line end
			c.quoted = false
			c.plain(b)
			return
		}
		c.inQuotes(b) // `"\r` was text
	case c.quote:
		c.quote = false
		switch b {
		case '"': // `""`: a quote
		case c.comma, '\n':
			c.quoted = false
			c.plain(b)
		case '\r':
			c.quoteCR = true
		default: // a bare quote, kept as text
			c.inQuotes(b)
		}
	case b == '"':
		c.quote = true
	}
}

// plain handles a byte outside a quoted field.
func (c *csvRowCounter) plain(b byte) {
	switch {
	case b == '\n':
		if c.content {
			c.records++
		}
		c.content, c.start = false, true
	case b == '\r':
	case b == c.comma:
		c.content, c.start = true, true
	case b == '"' && c.start:
		c.quoted, c.content, c.start = true, true, false
	default:
		c.content, c.start = true, false
	}
}

// finish ends the stream: a last record without a newline counts.
func (c *csvRowCounter) finish() int64 {
	if c.content || c.quoted {
		c.records++
		c.content, c.quoted = false, false
	}
	return c.records
}

// csvSniff is what the start of a file says about its dialect.
type csvSniff struct {
	delimiter rune
	columns   int
	header    bool
}

// sniffCSV picks the delimiter that splits the first rows into the same
// number (more than one) of fields most consistently, and decides whether
// the first row is a header: it is when its cells do not look like the
// column below them (text over numbers, or another length over cells of
// one length), as Python's csv.Sniffer decides.
func sniffCSV(head string, cut bool) csvSniff {
	if cut {
		// Drop the last, possibly partial, line.
		if i := strings.LastIndexByte(head, '\n'); i > 0 {
			head = head[:i+1]
		}
	}
	best := csvSniff{delimiter: ','}
	bestScore := 0
	var bestRows [][]string
	for _, d := range csvDelimiters {
		rows := csvRows(head, d, csvSniffRows)
		mode, n := modeFields(rows)
		if mode < 2 {
			continue
		}
		score := n*100/len(rows)*1000 + min(mode, 999)
		if score > bestScore {
			bestScore, best, bestRows = score, csvSniff{delimiter: d, columns: mode}, rows
		}
	}
	if bestRows == nil {
		rows := csvRows(head, ',', csvSniffRows)
		if len(rows) > 0 {
			best.columns = 1
		}
		return best
	}
	best.header = looksLikeHeader(bestRows, best.columns)
	return best
}

func csvRows(s string, d rune, max int) [][]string {
	cr := csv.NewReader(strings.NewReader(s))
	cr.Comma, cr.LazyQuotes, cr.FieldsPerRecord = d, true, -1
	var rows [][]string
	for len(rows) < max {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			continue
		}
		rows = append(rows, rec)
	}
	return rows
}

// modeFields returns the most common field count of rows and how many rows
// have it.
func modeFields(rows [][]string) (mode, count int) {
	counts := map[int]int{}
	for _, r := range rows {
		counts[len(r)]++
	}
	for fields, n := range counts {
		if n > count || (n == count && fields > mode) {
			mode, count = fields, n
		}
	}
	return mode, count
}

func looksLikeHeader(rows [][]string, columns int) bool {
	if len(rows) < 2 || len(rows[0]) < columns {
		return false
	}
	votes := 0
	for col := 0; col < columns; col++ {
		numeric, sameLen, length, seen := true, true, -1, 0
		for _, r := range rows[1:] {
			if len(r) <= col {
				continue
			}
			v := strings.TrimSpace(r[col])
			seen++
			if !isNumber(v) {
				numeric = false
			}
			if length < 0 {
				length = len(v)
			} else if len(v) != length {
				sameLen = false
			}
		}
		h := strings.TrimSpace(rows[0][col])
		switch {
		case seen == 0 || h == "":
		case numeric:
			if isNumber(h) {
				votes--
			} else {
				votes++
			}
		case sameLen:
			if len(h) != length {
				votes++
			} else {
				votes--
			}
		}
	}
	return votes > 0
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	_, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", "."), 64)
	return err == nil
}
