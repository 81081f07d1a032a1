package documents

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "dbf",
		DisplayName:    "dBASE Table",
		Family:         extractors.FamilyDocuments,
		Version:        "1.0.0",
		Implemented:    true,
		DefaultEnabled: true,
		Accept:         acceptDBF,
		Fields: []extractors.Field{
			{Path: "version", Type: extractors.TypeString, Doc: "file type from the first byte (dBASE III, dBASE IV, Visual FoxPro, ...)"},
			{Path: "last_update", Type: extractors.TypeDate, Doc: "date of the last update written in the header"},
			{Path: "record_count", Type: extractors.TypeNumber, Doc: "records the header declares"},
			{Path: "records_present", Type: extractors.TypeNumber, Doc: "records the file really holds, when fewer than declared"},
			{Path: "deleted_count", Type: extractors.TypeNumber, Doc: "records marked deleted"},
			{Path: "field_count", Type: extractors.TypeNumber, Doc: "fields of a record"},
			{Path: "fields.name", Type: extractors.TypeString, Doc: "field name"},
			{Path: "fields.type", Type: extractors.TypeString, Doc: "field type letter: C character, N numeric, F float, D date, L logical, M memo, I integer, T date-time, ..."},
			{Path: "fields.length", Type: extractors.TypeNumber, Doc: "field width in bytes"},
			{Path: "fields.decimals", Type: extractors.TypeNumber, Doc: "decimal places"},
			{Path: "encoding", Type: extractors.TypeString, Doc: "character set of the text values (from the language driver byte, else guessed)"},
			{Path: "sample_rows", Type: extractors.TypeText, Doc: "the first records (at most 5), as lists of trimmed values"},
			{Path: "text", Type: extractors.TypeText, Doc: "values of the character fields, a record a line, at most 256 KiB"},
			{Path: "text_truncated", Type: extractors.TypeBool, Doc: "true when the table holds more text than was kept"},
		},
		New: func(extractors.Env) (extractors.Extractor, error) { return dbfExtractor{}, nil },
	})
}

func acceptDBF(f extractors.File) bool {
	return extractors.AcceptMIME([]string{"application/x-dbf", "application/dbase", "application/dbf"}, "dbf")(f)
}

const (
	dbfMaxFields  = 1024
	dbfSampleRows = 5
)

type dbfExtractor struct{}

func (dbfExtractor) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	src, err := openSource(in, uncapped)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	br := bufio.NewReaderSize(src, 64<<10)
	// The fixed part says how long the whole header is.
	fixed := make([]byte, 32)
	if _, err := io.ReadFull(br, fixed); err != nil {
		if err := src.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("not a dBASE file: shorter than its header")
	}
	hlen := int(binary.LittleEndian.Uint16(fixed[8:10]))
	if hlen < 33 {
		return nil, fmt.Errorf("not a dBASE file: header length %d", hlen)
	}
	header := make([]byte, hlen)
	copy(header, fixed)
	if _, err := io.ReadFull(br, header[32:]); err != nil {
		if err := src.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("not a dBASE file: header cut short")
	}
	h, err := parseDBFHeader(header)
	if err != nil {
		return nil, err
	}
	data := h.data()
	text := doctext.NewBuilder(doctext.MaxText)
	recs, err := h.readRecords(ctx, br, text)
	if rerr := src.Err(); rerr != nil {
		return nil, rerr
	}
	if err != nil {
		return nil, err
	}
	if recs.present < int64(h.records) {
		data["records_present"] = recs.present
	}
	data["deleted_count"] = recs.deleted
	if h.encodingName != "" {
		data["encoding"] = h.encodingName
	}
	if len(recs.sample) > 0 {
		data["sample_rows"] = recs.sample
	}
	text.Put(data)
	return &extractors.Result{Data: data}, nil
}

// dbfRecords is what the records of a table gave.
type dbfRecords struct {
	present, deleted int64
	sample           []any // the first records' values
}

// readRecords reads the records h declares from r (the bytes after the
// header), their character values into text, a record a line. A table
// that ends before its declared count ends the count (present). It
// returns r's error other than its end, and ctx's.
func (h *dbfHeader) readRecords(ctx context.Context, r io.Reader, text *doctext.Builder) (dbfRecords, error) {
	var recs dbfRecords
	record := make([]byte, h.recordLen)
	for recs.present < int64(h.records) {
		if recs.present%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return recs, err
			}
		}
		if _, err := io.ReadFull(r, record); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break // the file ends before the declared count
			}
			return recs, err
		}
		recs.present++
		if record[0] == '*' {
			recs.deleted++
			continue
		}
		if len(recs.sample) < dbfSampleRows {
			recs.sample = append(recs.sample, h.values(record, false))
		}
		if text.Full() {
			text.MarkTruncated()
			continue
		}
		if vals := h.values(record, true); len(vals) > 0 {
			line := make([]string, 0, len(vals))
			for _, v := range vals {
				if s := v.(string); s != "" {
					line = append(line, s)
				}
			}
			if len(line) > 0 {
				text.Separate("\n")
				text.WriteString(strings.Join(line, "\t"))
			}
		}
	}
	return recs, nil
}

// dbfHeader is the parsed header of a dBASE file.
type dbfHeader struct {
	version      byte
	updated      time.Time
	records      uint32
	headerLen    int
	recordLen    int
	language     byte
	fields       []dbfField
	encoding     encoding.Encoding // nil: UTF-8 when valid, else Windows-1252
	encodingName string
}

type dbfField struct {
	name     string
	typ      byte
	offset   int // in the record, after the deletion flag
	length   int
	decimals int
}

// dbfVersions names the first byte of the known dBASE variants.
var dbfVersions = map[byte]string{
	0x02: "FoxBASE", 0x03: "dBASE III", 0x04: "dBASE IV", 0x05: "dBASE V",
	0x30: "Visual FoxPro", 0x31: "Visual FoxPro", 0x32: "Visual FoxPro",
	0x43: "dBASE IV", 0x63: "dBASE IV", 0x83: "dBASE III", 0x8B: "dBASE IV",
	0xCB: "dBASE IV", 0xE5: "HiPer-Six", 0xF5: "FoxPro", 0xFB: "FoxBASE",
}

// dbfCodePages maps the language driver byte to its character set, for
// the code pages x/text knows.
var dbfCodePages = map[byte]struct {
	enc  encoding.Encoding
	name string
}{
	0x01: {charmap.CodePage437, "cp437"}, 0x02: {charmap.CodePage850, "cp850"},
	0x03: {charmap.Windows1252, "windows-1252"}, 0x57: {charmap.Windows1252, "windows-1252"},
	0x58: {charmap.Windows1252, "windows-1252"}, 0x59: {charmap.Windows1252, "windows-1252"},
	0x64: {charmap.CodePage852, "cp852"}, 0x65: {charmap.CodePage866, "cp866"},
	0x66: {charmap.CodePage865, "cp865"}, 0x26: {charmap.CodePage866, "cp866"},
	0x7D: {charmap.Windows1255, "windows-1255"}, 0x7E: {charmap.Windows1256, "windows-1256"},
	0xC8: {charmap.Windows1250, "windows-1250"}, 0xC9: {charmap.Windows1251, "windows-1251"},
	0xCA: {charmap.Windows1254, "windows-1254"}, 0xCB: {charmap.Windows1253, "windows-1253"},
}

// parseDBFHeader parses a whole header (its length is at bytes 8-9). It
// refuses headers whose fields do not fit their record, so that reading a
// record never goes out of bounds.
func parseDBFHeader(b []byte) (*dbfHeader, error) {
	if len(b) < 33 {
		return nil, errors.New("not a dBASE file: header too short")
	}
	if _, known := dbfVersions[b[0]]; !known {
		return nil, fmt.Errorf("not a dBASE file: unknown version byte 0x%02x", b[0])
	}
	h := &dbfHeader{
		version:   b[0],
		records:   binary.LittleEndian.Uint32(b[4:8]),
		headerLen: int(binary.LittleEndian.Uint16(b[8:10])),
		recordLen: int(binary.LittleEndian.Uint16(b[10:12])),
		language:  b[29],
	}
	if h.headerLen > len(b) || h.recordLen < 1 {
		return nil, fmt.Errorf("not a dBASE file: header %d bytes, record %d bytes", h.headerLen, h.recordLen)
	}
	if m, d := int(b[2]), int(b[3]); m >= 1 && m <= 12 && d >= 1 && d <= 31 {
		h.updated = time.Date(1900+int(b[1]), time.Month(m), d, 0, 0, 0, 0, time.UTC)
	}
	offset := 0
	for i := 32; i+32 <= h.headerLen && b[i] != 0x0D; i += 32 {
		if len(h.fields) == dbfMaxFields {
			return nil, errors.New("not a dBASE file: too many fields")
		}
		d := b[i : i+32]
		fname := string(d[:11])
		if j := strings.IndexByte(fname, 0); j >= 0 {
			fname = fname[:j]
		}
		f := dbfField{name: strings.TrimSpace(fname), typ: d[11], offset: offset, length: int(d[16]), decimals: int(d[17])}
		if f.typ == 'C' && h.version != 0x30 && h.version != 0x31 && h.version != 0x32 {
			// Clipper and FoxPro use the decimals byte as the high byte of
			// long character fields.
			f.length += int(d[17]) << 8
			f.decimals = 0
		}
		offset += f.length
		h.fields = append(h.fields, f)
	}
	if len(h.fields) == 0 {
		return nil, errors.New("not a dBASE file: no field")
	}
	if 1+offset > h.recordLen {
		return nil, fmt.Errorf("not a dBASE file: fields of %d bytes in records of %d", offset, h.recordLen)
	}
	if cp, ok := dbfCodePages[h.language]; ok {
		h.encoding, h.encodingName = cp.enc, cp.name
	}
	return h, nil
}

func (h *dbfHeader) data() map[string]any {
	fields := make([]any, len(h.fields))
	for i, f := range h.fields {
		fields[i] = map[string]any{"name": doctext.Clip(h.decode([]byte(f.name)), 64), "type": typeLetter(f.typ),
			"length": f.length, "decimals": f.decimals}
	}
	d := map[string]any{
		"version":      dbfVersions[h.version],
		"record_count": h.records,
		"field_count":  len(h.fields),
		"fields":       fields,
	}
	if !h.updated.IsZero() {
		d["last_update"] = h.updated.Format(time.RFC3339)
	}
	return d
}

func typeLetter(b byte) string {
	if b >= 0x20 && b < 0x7f {
		return string(rune(b))
	}
	return fmt.Sprintf("0x%02x", b)
}

// values returns a record's values, trimmed; with textOnly, only those of
// character fields.
func (h *dbfHeader) values(record []byte, textOnly bool) []any {
	out := make([]any, 0, len(h.fields))
	for _, f := range h.fields {
		if textOnly && f.typ != 'C' && f.typ != 'V' {
			continue
		}
		raw := record[1+f.offset : 1+f.offset+f.length]
		var s string
		switch f.typ {
		case 'C', 'V', 'N', 'F', 'D', 'L':
			s = strings.TrimSpace(strings.TrimRight(h.decode(raw), "\x00"))
		default:
			s = "" // binary values (I, B, T, Y, M pointers) are not text
		}
		out = append(out, doctext.Clip(s, 1024))
	}
	return out
}

func (h *dbfHeader) decode(b []byte) string {
	if h.encoding != nil {
		if s, err := h.encoding.NewDecoder().Bytes(b); err == nil {
			return string(s)
		}
	}
	if utf8.Valid(b) {
		if h.encodingName == "" {
			h.encodingName = "utf-8"
		}
		return string(b)
	}
	if h.encodingName == "" || h.encodingName == "utf-8" {
		h.encodingName = "windows-1252"
	}
	s, _ := charmap.Windows1252.NewDecoder().Bytes(b)
	return string(s)
}
