package export

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/search"
)

// Formats of a search export.
const (
	FormatCSV   = "csv"
	FormatJSONL = "jsonl"
)

// Limits of a search export. What an export holds at once is one page of
// results restricted to its fields (PageSize, or TextPageSize when a field
// is long text), each CSV cell cut at MaxCellBytes, and the writer's
// buffer: not the results before it, whatever their number.
const (
	MaxResults   = 1_000_000
	PageSize     = 1000
	TextPageSize = 50
	MaxCellBytes = 32767 // the most a spreadsheet cell holds
	MaxFields    = 100
	maxFieldLen  = 200
)

// DefaultFields are the columns of an export that names none: what a
// result of the search page shows, its source and its id.
var DefaultFields = append([]string{search.FieldID, search.FieldName, search.FieldType, search.FieldMimeType, search.FieldSize,
	search.FieldLastModified, search.FieldLocationName, search.FieldContainerName, search.FieldStoreURL,
	"mediainfo.duration", "audioinfo.duration"}, store.PageCountFields...)

// Results is what to export of a search.
type Results struct {
	// Format is FormatCSV or FormatJSONL.
	Format string
	// Fields are the columns (CSV) or the fields each line keeps (JSON
	// lines), catalogue paths; DefaultFields when empty. A field no
	// document has is an empty column.
	Fields []string
	// Max stops the export after this many results (0: MaxResults).
	Max int
	// LongText says a field is long text (a document's text, a
	// transcript): pages are smaller.
	LongText bool
}

var fieldName = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_-]+)*$`)

// Check validates the options: an *apperr.Error (400) names what is wrong.
func (o *Results) Check() error {
	problems := map[string]string{}
	switch o.Format {
	case FormatCSV, FormatJSONL:
	default:
		problems["format"] = "must be csv or jsonl"
	}
	if len(o.Fields) > MaxFields {
		problems["fields"] = fmt.Sprintf("at most %d fields", MaxFields)
	}
	seen := map[string]bool{}
	var fields []string
	for _, f := range o.Fields {
		f = strings.TrimSpace(f)
		if f == "" || seen[f] {
			continue
		}
		if len(f) > maxFieldLen || !fieldName.MatchString(f) {
			problems["fields"] = fmt.Sprintf("%q is not a field name", clip(f))
			continue
		}
		seen[f] = true
		fields = append(fields, f)
	}
	o.Fields = fields
	if o.Max < 0 || o.Max > MaxResults {
		problems["max"] = fmt.Sprintf("must be between 1 and %d", MaxResults)
	}
	if len(problems) > 0 {
		return apperr.Invalid(problems)
	}
	return nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// flusher is a response writer that can send what it was given so far.
type flusher interface{ Flush() }

// WriteResults streams every result of req that vis may see to w, in the
// order of their ids, a page at a time through the engine's cursor
// (search.Cursor): the request's words, types and filters apply; its page,
// sort, aggregations and hit counts do not. After each page w is flushed
// when it can be (an HTTP response). It returns how many results it wrote;
// an error after the first byte leaves w incomplete, which the caller
// must make visible (the api aborts the response).
func WriteResults(ctx context.Context, eng search.Engine, req search.Request, vis search.Visibility, o Results, w io.Writer) (int, error) {
	if err := o.Check(); err != nil {
		return 0, err
	}
	fields := o.Fields
	if len(fields) == 0 {
		fields = DefaultFields
	}
	max := o.Max
	if max == 0 {
		max = MaxResults
	}
	page := PageSize
	if o.LongText {
		page = TextPageSize
	}
	req.Page, req.SortFields, req.Aggregations, req.HitCounts = 0, nil, nil, nil
	req.Only = fields
	req.Cursor = &search.Cursor{}

	bw := bufio.NewWriterSize(w, 64<<10)
	var cw *csv.Writer
	var enc *json.Encoder
	if o.Format == FormatCSV {
		cw = csv.NewWriter(bw)
		if err := cw.Write(fields); err != nil {
			return 0, err
		}
	} else {
		enc = json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
	}
	row := make([]string, len(fields))
	n := 0
	for n < max {
		req.Limit = min(page, max-n)
		res, err := eng.Search(ctx, req, vis)
		if err != nil {
			return n, err
		}
		for _, r := range res.Results {
			if cw != nil {
				for i, f := range fields {
					row[i] = cellOf(values(r.Result, f))
				}
				err = cw.Write(row)
			} else {
				err = enc.Encode(r.Result)
			}
			if err != nil {
				return n, err
			}
			n++
		}
		if cw != nil {
			cw.Flush()
			if err := cw.Error(); err != nil {
				return n, err
			}
		}
		if err := bw.Flush(); err != nil {
			return n, err
		}
		if f, ok := w.(flusher); ok {
			f.Flush()
		}
		if len(res.Results) < req.Limit {
			break
		}
		last, _ := res.Results[len(res.Results)-1].Result[search.FieldID].(string)
		if last == "" {
			return n, fmt.Errorf("export: a result without an id")
		}
		req.Cursor = &search.Cursor{After: last}
	}
	return n, nil
}

// values are the values of a dotted path in a result (every element's,
// through lists of objects).
func values(doc any, path string) []any {
	head, rest, more := strings.Cut(path, ".")
	switch x := doc.(type) {
	case map[string]any:
		v, ok := x[head]
		if !ok {
			return nil
		}
		if !more {
			if list, ok := v.([]any); ok {
				return list
			}
			return []any{v}
		}
		return values(v, rest)
	case []any:
		var out []any
		for _, e := range x {
			out = append(out, values(e, path)...)
		}
		return out
	}
	return nil
}

// cellOf writes values as one CSV cell: scalars as text, several joined
// by "; ", objects as JSON, cut at MaxCellBytes.
func cellOf(vs []any) string {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		switch x := v.(type) {
		case nil:
			continue
		case string:
			parts = append(parts, x)
		case json.Number:
			parts = append(parts, x.String())
		case bool, float64, int, int64:
			parts = append(parts, fmt.Sprint(x))
		default:
			b, _ := json.Marshal(x)
			parts = append(parts, string(b))
		}
	}
	s := strings.Join(parts, "; ")
	if len(s) > MaxCellBytes {
		cut := MaxCellBytes
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut]
	}
	if len(vs) == 1 {
		if _, isString := vs[0].(string); !isString {
			return s // a number's minus sign is no formula
		}
	}
	return cell(s)
}
