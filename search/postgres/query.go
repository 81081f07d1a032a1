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

// table describes an index table and the fields that have a column of their
// own (btree-indexed, cheaper than the jsonb maps).
type table struct {
	name string
	// source holds the documents results return (column doc, key id).
	source string
	scope  search.Scope
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
		source:   "search_sources",
		scope:    search.ScopeItems,
		strCols:  map[string]string{search.FieldID: "d.id", search.FieldType: "d.type", search.FieldName: "d.name"},
		numCols:  map[string]numCol{search.FieldSize: {"d.size", true}},
		dateCols: map[string]string{search.FieldLastModified: "d.last_modified"},
	}
	segmentsTable = table{
		name:     "search_segments",
		source:   "search_segments",
		scope:    search.ScopeSegments,
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

// clone copies the arguments so that statements sharing a WHERE clause can
// append their own.
func (q *query) clone() *query {
	return &query{args: append([]any(nil), q.args...)}
}

// compiled is a plan turned into SQL fragments over "d".
type compiled struct {
	q     *query
	where string
	tsq   string // tsquery expression, "" without a text query
	score string
}

func compile(t table, p *search.Plan, vis search.Visibility) *compiled {
	q := &query{}
	c := &compiled{q: q, score: "1::float8"}
	var conds []string
	if !vis.All {
		// public (no group at all) comes first: it is the common case, and
		// the one the planner has statistics for.
		g := q.arg(nonNil(vis.GroupIDs))
		conds = append(conds, fmt.Sprintf(
			"(d.public OR ((cardinality(d.location_groups) = 0 OR d.location_groups && %[1]s::text[]) AND (cardinality(d.container_groups) = 0 OR d.container_groups && %[1]s::text[])))", g))
	}
	if p.Query != "" {
		c.tsq = tsQuery(q, p)
		conds = append(conds, fmt.Sprintf("d.tsv @@ %s", c.tsq))
		if len(p.SearchFields) > 0 {
			conds = append(conds, fmt.Sprintf("to_tsvector('simple', search_tsv_text(search_text(d.flat, %s::text[]))) @@ %s", q.arg(p.SearchFields), c.tsq))
		}
		c.score = fmt.Sprintf("ts_rank_cd(d.tsv, %s, 32)::float8", c.tsq)
	}
	if len(p.Types) > 0 {
		conds = append(conds, fmt.Sprintf("d.type = ANY(%s::text[])", q.arg(p.Types)))
	}
	for _, tc := range p.Terms {
		conds = append(conds, termCond(t, q, tc))
	}
	for _, rc := range p.Ranges {
		conds = append(conds, rangeCond(t, q, rc))
	}
	for _, ec := range p.Exists {
		conds = append(conds, fmt.Sprintf("d.flat ?| %s::text[]", q.arg(ec.Leaves)))
	}
	for _, ec := range p.NotExists {
		conds = append(conds, fmt.Sprintf("NOT (d.flat ?| %s::text[])", q.arg(ec.Leaves)))
	}
	if len(conds) == 0 {
		c.where = "true"
	} else {
		c.where = strings.Join(conds, "\n  AND ")
	}
	return c
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
func termCond(t table, q *query, tc search.TermCond) string {
	if col, ok := t.strCols[tc.Field]; ok {
		return fmt.Sprintf("%s = ANY(%s::text[])", col, q.arg(tc.Values))
	}
	var ors []string
	for _, v := range tc.Values {
		for _, cand := range termCandidates(tc.Field, v) {
			ors = append(ors, fmt.Sprintf("d.flat @> %s::jsonb", q.arg(cand)))
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

func rangeCond(t table, q *query, rc search.RangeCond) string {
	var parts []string
	cmp := func(expr string, b *search.Bound, op string, castAs string, val any) {
		if b != nil {
			parts = append(parts, fmt.Sprintf("%s %s %s::%s", expr, op, q.arg(val), castAs))
		}
	}
	if nc, ok := t.numCols[rc.Field]; ok && rc.Kind == search.KindNumber {
		if nc.integer {
			// Integer bounds keep the comparison on the bigint column indexable.
			if rc.From != nil {
				cmp(nc.expr, rc.From, ">=", "bigint", clampInt(math.Ceil(rc.From.Num)))
			}
			if rc.To != nil {
				cmp(nc.expr, rc.To, "<=", "bigint", clampInt(math.Floor(rc.To.Num)))
			}
		} else {
			if rc.From != nil {
				cmp(nc.expr, rc.From, ">=", "float8", rc.From.Num)
			}
			if rc.To != nil {
				cmp(nc.expr, rc.To, "<=", "float8", rc.To.Num)
			}
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	}
	if col, ok := t.dateCols[rc.Field]; ok && rc.Kind == search.KindDate {
		if rc.From != nil {
			cmp(col, rc.From, ">=", "timestamptz", rc.From.Time.UTC().Format(time.RFC3339Nano))
		}
		if rc.To != nil {
			cmp(col, rc.To, "<=", "timestamptz", rc.To.Time.UTC().Format(time.RFC3339Nano))
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	}
	// Any element within both bounds. CASE guards the cast: a string where a
	// number is expected is skipped, never an error.
	src := "d.flat"
	if rc.Kind == search.KindDate {
		src = "d.dates"
	}
	x := "(CASE WHEN jsonb_typeof(v) = 'number' THEN (v)::float8 END)"
	if rc.From != nil {
		cmp(x, rc.From, ">=", "float8", rc.From.Seconds())
	}
	if rc.To != nil {
		cmp(x, rc.To, "<=", "float8", rc.To.Seconds())
	}
	return fmt.Sprintf("EXISTS (SELECT 1 FROM jsonb_array_elements(%s -> %s::text) v WHERE %s)", src, q.arg(rc.Field), strings.Join(parts, " AND "))
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
func sortExpr(t table, q *query, k search.SortKey) string {
	switch k.Kind {
	case search.KindNumber:
		if nc, ok := t.numCols[k.Field]; ok {
			return nc.expr
		}
		p := q.arg(k.Field)
		return fmt.Sprintf("(CASE WHEN jsonb_typeof(d.flat -> %[1]s::text -> 0) = 'number' THEN (d.flat -> %[1]s::text -> 0)::float8 END)", p)
	case search.KindDate:
		if col, ok := t.dateCols[k.Field]; ok {
			return col
		}
		p := q.arg(k.Field)
		return fmt.Sprintf("(CASE WHEN jsonb_typeof(d.dates -> %[1]s::text -> 0) = 'number' THEN (d.dates -> %[1]s::text -> 0)::float8 END)", p)
	default:
		if col, ok := t.strCols[k.Field]; ok {
			return col + ` COLLATE "C"`
		}
		p := q.arg(k.Field)
		return fmt.Sprintf(`(CASE WHEN jsonb_typeof(d.flat -> %[1]s::text -> 0) = 'string' THEN d.flat -> %[1]s::text ->> 0 END) COLLATE "C"`, p)
	}
}

// orderBy: the sort keys (missing values last), then relevance, then _id,
// so that pages never overlap.
func orderBy(t table, q *query, p *search.Plan, c *compiled, defaultKey string) string {
	var keys []string
	for _, k := range p.Sort {
		dir := "DESC"
		if k.Asc {
			dir = "ASC"
		}
		keys = append(keys, fmt.Sprintf("%s %s NULLS LAST", sortExpr(t, q, k), dir))
	}
	if c.tsq != "" {
		keys = append(keys, "score DESC")
	} else if defaultKey != "" && len(p.Sort) == 0 {
		keys = append(keys, defaultKey)
	}
	keys = append(keys, "d.id")
	return strings.Join(keys, ", ")
}

// numericSource is a LATERAL subquery yielding x, the numeric values of a
// field (numbers, or instants in seconds).
func numericSource(t table, q *query, field string, kind search.Kind) string {
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
	src := "d.flat"
	if kind == search.KindDate {
		src = "d.dates"
	}
	return fmt.Sprintf("(SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN (v)::float8 END AS x FROM jsonb_array_elements(%s -> %s::text) v) e", src, q.arg(field))
}

// valueSource yields k, the values of a field as text (terms, cardinality).
func valueSource(t table, q *query, field string) string {
	if col, ok := t.strCols[field]; ok {
		return fmt.Sprintf("(SELECT %[1]s AS k WHERE %[1]s <> '') e", col)
	}
	return fmt.Sprintf("(SELECT v #>> '{}' AS k FROM jsonb_array_elements(d.flat -> %s::text) v) e", q.arg(field))
}
