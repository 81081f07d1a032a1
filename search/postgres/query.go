package postgres

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/search"
)

// table describes an index: its core table (alias d), where the text and the
// flat maps live, and the fields that have a column of their own
// (btree-indexed, cheaper than the jsonb maps).
type table struct {
	name string
	// text, when set, is the table queries with text read instead of name:
	// the same columns plus tsv.
	text string
	// source holds the documents results return (column doc, key id).
	source string
	// visClass: visibility is an integer class (vis, see search_visibility)
	// rather than the two group lists. keys: an int[] column holds the ids
	// of the document's leaf paths (exists, hit counts). numbers: nested
	// ranges read search_numbers.
	visClass, keys, numbers bool
	// textJoin/flatJoin join the tables holding tsv (alias tx) and
	// flat/dates (alias fx); empty when the core table holds them (tx, fx = d).
	textJoin, flatJoin string
	tx, fx             string
	// strCols: string fields (terms, string sorts, terms aggregations).
	strCols map[string]string
	// numCols: number fields; integer ones compare with integer bounds so
	// that their btree index applies.
	numCols map[string]numCol
	// dateCols: date fields (timestamptz).
	dateCols map[string]string
}

type numCol struct {
	expr    string
	integer bool
}

var (
	itemsTable = table{
		name:     "search_documents",
		text:     "search_fulltext",
		source:   "search_sources",
		visClass: true,
		keys:     true,
		numbers:  true,
		flatJoin: "JOIN search_flat f ON f.id = d.id",
		tx:       "d",
		fx:       "f",
		strCols: map[string]string{
			search.FieldID: "d.id", search.FieldType: "d.type", search.FieldName: "d.name",
			search.FieldExtension: "d.extension", search.FieldMimeType: "d.mime_type",
			search.FieldLocationID: "d.location_id", search.FieldLocationName: "d.location_name",
			search.FieldContainerID: "d.container_id", search.FieldContainerName: "d.container_name",
		},
		numCols:  map[string]numCol{search.FieldSize: {"d.size", true}},
		dateCols: map[string]string{search.FieldLastModified: "d.last_modified"},
	}
	segmentsTable = table{
		name:     "search_segments",
		source:   "search_segments",
		tx:       "d",
		fx:       "d",
		strCols:  map[string]string{search.FieldID: "d.id", "item_id": "d.item_id"},
		numCols:  map[string]numCol{"time": {"d.time", false}},
		dateCols: map[string]string{},
	}
)

// query collects positional arguments: every user value reaches Postgres as
// a parameter; the SQL text only ever holds fixed fragments and $n.
type query struct {
	args []any
}

func (q *query) arg(v any) string {
	q.args = append(q.args, v)
	return "$" + strconv.Itoa(len(q.args))
}

// resolved holds what a plan needs read from the dictionaries before it
// is compiled.
type resolved struct {
	// classes: the visibility classes the user may see (tables with
	// visClass, unless the user sees everything).
	classes []int32
	// paths: the ids of the paths the plan names (keys, search_numbers);
	// a path missing here is in no document.
	paths map[string]int32
}

// compiled is a plan turned into SQL fragments.
type compiled struct {
	t     table
	r     *resolved
	base  string // the core table the statement reads (alias d)
	q     *query
	where string
	tsq   string // tsquery expression, "" without a text query
	score string
	// needText/needFlat: the WHERE clause reads tx/fx.
	needText, needFlat bool
}

// ranksAll: the page ranks every match (a text search, read from the
// full-text table, which has no index to walk in the order of a sort).
func (c *compiled) ranksAll() bool { return c.t.text != "" && c.base == c.t.text }

// stmt is one statement built on the compiled WHERE clause: its own
// arguments (after the clause's) and its own needs of the joined tables.
type stmt struct {
	c    *compiled
	q    *query
	flat bool
}

func (c *compiled) stmt() *stmt {
	return &stmt{c: c, q: &query{args: append([]any(nil), c.q.args...)}}
}

func (s *stmt) arg(v any) string { return s.q.arg(v) }

// fcol names a column of the flat table and notes that it is read.
func (s *stmt) fcol(col string) string {
	s.flat = true
	return s.c.t.fx + "." + col
}

// from is the FROM clause: the core table and the joins the statement reads.
func (s *stmt) from() string {
	f := s.c.base + " d"
	if s.c.needText && s.c.t.textJoin != "" {
		f += " " + s.c.t.textJoin
	}
	if (s.c.needFlat || s.flat) && s.c.t.flatJoin != "" {
		f += " " + s.c.t.flatJoin
	}
	return f
}

func compile(t table, p *search.Plan, vis search.Visibility, r *resolved) *compiled {
	c := &compiled{t: t, r: r, base: t.name, q: &query{}, score: "1::float8"}
	if p.Query != "" && t.text != "" {
		c.base = t.text
	}
	s := &stmt{c: c, q: c.q}
	var conds []string
	if !vis.All && t.visClass {
		conds = append(conds, fmt.Sprintf("d.vis = ANY(%s::integer[])", s.arg(r.classes)))
	} else if !vis.All {
		// public (no group at all) comes first: it is the common case, and
		// the one the planner has statistics for.
		g := s.arg(nonNil(vis.GroupIDs))
		conds = append(conds, fmt.Sprintf(
			"(d.public OR ((cardinality(d.location_groups) = 0 OR d.location_groups && %[1]s::text[]) AND (cardinality(d.container_groups) = 0 OR d.container_groups && %[1]s::text[])))", g))
	}
	if p.Query != "" {
		c.needText = true
		c.tsq = tsQuery(s.q, p)
		tsv := t.tx + ".tsv"
		conds = append(conds, fmt.Sprintf("%s @@ %s", tsv, c.tsq))
		if len(p.SearchFields) > 0 {
			conds = append(conds, fmt.Sprintf("to_tsvector('simple', search_tsv_text(search_text(%s, %s::text[]))) @@ %s", s.fcol("flat"), s.arg(p.SearchFields), c.tsq))
		}
		c.score = fmt.Sprintf("ts_rank_cd(%s, %s, 32)::float8", tsv, c.tsq)
	}
	if len(p.Types) > 0 {
		conds = append(conds, fmt.Sprintf("d.type = ANY(%s::text[])", s.arg(p.Types)))
	}
	for _, tc := range p.Terms {
		conds = append(conds, s.termCond(tc))
	}
	for _, rc := range p.Ranges {
		conds = append(conds, s.rangeCond(rc))
	}
	for _, ec := range p.Exists {
		conds = append(conds, s.hasAny(ec.Leaves))
	}
	for _, ec := range p.NotExists {
		conds = append(conds, "NOT "+s.hasAny(ec.Leaves))
	}
	c.needFlat = s.flat
	if len(conds) == 0 {
		c.where = "true"
	} else {
		c.where = strings.Join(conds, "\n  AND ")
	}
	return c
}

// hasAny: the document has a value at one of the leaves.
func (s *stmt) hasAny(leaves []string) string {
	if !s.c.t.keys {
		return fmt.Sprintf("(%s ?| %s::text[])", s.fcol("flat"), s.arg(leaves))
	}
	ids := []int32{}
	for _, l := range leaves {
		if id, ok := s.c.r.paths[l]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "false"
	}
	return fmt.Sprintf("(d.keys && %s::integer[])", s.arg(ids))
}

// tsQuery is the tsquery expression of the plan's text query. websearch
// syntax has no prefix operator, so for prefix matching ":*" is added to the
// last lexeme of the parsed query's text.
func tsQuery(q *query, p *search.Plan) string {
	qa := q.arg(p.Query)
	if p.Prefix {
		return fmt.Sprintf(`regexp_replace(websearch_to_tsquery('simple', %s)::text, '''$', ''':*')::tsquery`, qa)
	}
	return fmt.Sprintf(`websearch_to_tsquery('simple', %s)`, qa)
}

// termCond: the field holds one of the values. Through the flat map a value
// matches as a string, as the equal number and as a boolean, each a jsonb
// containment the GIN index answers.
func (s *stmt) termCond(tc search.TermCond) string {
	if col, ok := s.c.t.strCols[tc.Field]; ok {
		// An empty string is no value (as in the flat map).
		var vals []string
		for _, v := range tc.Values {
			if v != "" {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			return "false"
		}
		return fmt.Sprintf("%s = ANY(%s::text[])", col, s.arg(vals))
	}
	flat := s.fcol("flat")
	var ors []string
	for _, v := range tc.Values {
		for _, cand := range termCandidates(tc.Field, v) {
			ors = append(ors, fmt.Sprintf("%s @> %s::jsonb", flat, s.arg(cand)))
		}
	}
	return "(" + strings.Join(ors, " OR ") + ")"
}

// termCandidates are the jsonb documents {field: [value]} a term matches.
func termCandidates(field, v string) []string {
	enc := func(x any) string {
		b, _ := json.Marshal(map[string][]any{field: {x}})
		return string(b)
	}
	out := []string{enc(v)}
	if f, ok := search.ParseNumber(strings.TrimSpace(v)); ok {
		out = append(out, enc(f))
	}
	switch v {
	case "true":
		out = append(out, enc(true))
	case "false":
		out = append(out, enc(false))
	}
	return out
}

func (s *stmt) rangeCond(rc search.RangeCond) string {
	var parts []string
	cmp := func(expr, op, castAs string, val any) {
		parts = append(parts, fmt.Sprintf("%s %s %s::%s", expr, op, s.arg(val), castAs))
	}
	if nc, ok := s.c.t.numCols[rc.Field]; ok && rc.Kind == search.KindNumber {
		if nc.integer {
			// Integer bounds keep the comparison on the bigint column indexable.
			if rc.From != nil {
				cmp(nc.expr, ">=", "bigint", clampInt(math.Ceil(rc.From.Num)))
			}
			if rc.To != nil {
				cmp(nc.expr, "<=", "bigint", clampInt(math.Floor(rc.To.Num)))
			}
		} else {
			if rc.From != nil {
				cmp(nc.expr, ">=", "float8", rc.From.Num)
			}
			if rc.To != nil {
				cmp(nc.expr, "<=", "float8", rc.To.Num)
			}
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	}
	if col, ok := s.c.t.dateCols[rc.Field]; ok && rc.Kind == search.KindDate {
		if rc.From != nil {
			cmp(col, ">=", "timestamptz", rc.From.Time.UTC().Format(time.RFC3339Nano))
		}
		if rc.To != nil {
			cmp(col, "<=", "timestamptz", rc.To.Time.UTC().Format(time.RFC3339Nano))
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	}
	// Any value within both bounds.
	if s.c.t.numbers {
		id, ok := s.c.r.paths[rc.Field]
		if !ok {
			return "false"
		}
		x := "n.x"
		if rc.From != nil {
			cmp(x, ">=", "float8", rc.From.Seconds())
		}
		if rc.To != nil {
			cmp(x, "<=", "float8", rc.To.Seconds())
		}
		return fmt.Sprintf("EXISTS (SELECT 1 FROM search_numbers n WHERE n.id = d.id AND n.path = %s::integer AND n.date = %s AND %s)",
			s.arg(id), s.arg(rc.Kind == search.KindDate), strings.Join(parts, " AND "))
	}
	// CASE guards the cast: a string where a number is expected is skipped,
	// never an error.
	src := s.fcol("flat")
	if rc.Kind == search.KindDate {
		src = s.fcol("dates")
	}
	x := "(CASE WHEN jsonb_typeof(v) = 'number' THEN (v)::float8 END)"
	if rc.From != nil {
		cmp(x, ">=", "float8", rc.From.Seconds())
	}
	if rc.To != nil {
		cmp(x, "<=", "float8", rc.To.Seconds())
	}
	return fmt.Sprintf("EXISTS (SELECT 1 FROM jsonb_array_elements(%s -> %s::text) v WHERE %s)", src, s.arg(rc.Field), strings.Join(parts, " AND "))
}

func clampInt(f float64) int64 {
	switch {
	case f >= 9.2e18:
		return math.MaxInt64
	case f <= -9.2e18:
		return math.MinInt64
	}
	return int64(f)
}

// sortExpr is the ORDER BY expression of a sort key.
func (s *stmt) sortExpr(k search.SortKey) string {
	t := s.c.t
	switch k.Kind {
	case search.KindNumber:
		if nc, ok := t.numCols[k.Field]; ok {
			return nc.expr
		}
		return fmt.Sprintf("(CASE WHEN jsonb_typeof(%[1]s -> %[2]s::text -> 0) = 'number' THEN (%[1]s -> %[2]s::text -> 0)::float8 END)", s.fcol("flat"), s.arg(k.Field))
	case search.KindDate:
		if col, ok := t.dateCols[k.Field]; ok {
			return col
		}
		return fmt.Sprintf("(CASE WHEN jsonb_typeof(%[1]s -> %[2]s::text -> 0) = 'number' THEN (%[1]s -> %[2]s::text -> 0)::float8 END)", s.fcol("dates"), s.arg(k.Field))
	default:
		if col, ok := t.strCols[k.Field]; ok {
			return col + ` COLLATE "C"`
		}
		return fmt.Sprintf(`(CASE WHEN jsonb_typeof(%[1]s -> %[2]s::text -> 0) = 'string' THEN %[1]s -> %[2]s::text ->> 0 END) COLLATE "C"`, s.fcol("flat"), s.arg(k.Field))
	}
}

// orderBy: the sort keys (missing values last), then relevance, then _id,
// so that pages never overlap.
func (s *stmt) orderBy(p *search.Plan, defaultKey string) string {
	var keys []string
	for _, k := range p.Sort {
		dir := "DESC"
		if k.Asc {
			dir = "ASC"
		}
		keys = append(keys, fmt.Sprintf("%s %s NULLS LAST", s.sortExpr(k), dir))
	}
	if s.c.tsq != "" {
		keys = append(keys, "score DESC")
	} else if defaultKey != "" && len(p.Sort) == 0 {
		keys = append(keys, defaultKey)
	}
	keys = append(keys, "d.id")
	return strings.Join(keys, ", ")
}

// numericSource is a LATERAL subquery yielding x, the numeric values of a
// field (numbers, or instants in seconds).
func (s *stmt) numericSource(field string, kind search.Kind) string {
	t := s.c.t
	if kind == search.KindNumber {
		if nc, ok := t.numCols[field]; ok {
			return fmt.Sprintf("(SELECT %s::float8 AS x) e", nc.expr)
		}
	}
	if kind == search.KindDate {
		if col, ok := t.dateCols[field]; ok {
			return fmt.Sprintf("(SELECT extract(epoch FROM %s)::float8 AS x) e", col)
		}
	}
	src := "flat"
	if kind == search.KindDate {
		src = "dates"
	}
	return fmt.Sprintf("(SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN (v)::float8 END AS x FROM jsonb_array_elements(%s -> %s::text) v) e", s.fcol(src), s.arg(field))
}

// valueSource yields k, the values of a field as text (terms, cardinality).
func (s *stmt) valueSource(field string) string {
	if col, ok := s.c.t.strCols[field]; ok {
		return fmt.Sprintf("(SELECT %[1]s AS k WHERE %[1]s <> '') e", col)
	}
	return fmt.Sprintf("(SELECT v #>> '{}' AS k FROM jsonb_array_elements(%s -> %s::text) v) e", s.fcol("flat"), s.arg(field))
}
