package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/metaharvest/metaharvest/search"
)

// baseAggPlan lists the aggregations computed over base columns in one scan:
// terms aggregations over string columns and min/max/avg/sum metrics over
// number and date columns.
type baseAggPlan struct {
	terms   []search.TermsPlan
	metrics []search.MetricPlan
}

// splitBaseAggs separates the aggregations one grouping-sets scan can
// compute from the rest (nested fields, cardinality, histograms), which
// keep their own statements. base is nil when there are none.
//
// Over every visible document (no query, no filter) they run apart too:
// each terms aggregation then reads its (vis, column) index alone, which
// beats one scan of the table for both.
func splitBaseAggs(t table, p *search.Plan) (*baseAggPlan, *search.Plan) {
	if matchesEverything(p) {
		return nil, p
	}
	rest := *p
	rest.TermsAggs, rest.Metrics = nil, nil
	base := &baseAggPlan{}
	filter, _, filtered := countedFilter(t, p)
	for _, ta := range p.TermsAggs {
		if col, ok := t.strCols[ta.Field]; ok && filtered && countedColumns[col] == filter {
			// Read from the kept counts (countedTerms).
			rest.TermsAggs = append(rest.TermsAggs, ta)
		} else if ok {
			base.terms = append(base.terms, ta)
		} else {
			rest.TermsAggs = append(rest.TermsAggs, ta)
		}
	}
	for _, m := range p.Metrics {
		if m.Type != search.MetricCardinality && metricColumn(t, m) != "" {
			base.metrics = append(base.metrics, m)
		} else {
			rest.Metrics = append(rest.Metrics, m)
		}
	}
	if len(base.terms)+len(base.metrics) == 0 {
		return nil, p
	}
	return base, &rest
}

// matchesEverything: the plan has no query and no filter (every visible
// document matches).
func matchesEverything(p *search.Plan) bool {
	return p.Query == "" && len(p.Types)+len(p.Terms)+len(p.Ranges)+len(p.Exists)+len(p.NotExists) == 0
}

// countedColumns are the columns of search_documents whose values
// search_term_counts counts (migration 00013), by their expression in
// queries: a terms aggregation over every visible document reads their
// counts instead of the documents.
var countedColumns = map[string]string{
	"d.type": "type", "d.extension": "extension", "d.mime_type": "mime_type",
	"d.location_id": "location_id", "d.location_name": "location_name",
	"d.container_id": "container_id", "d.container_name": "container_name",
}

// countedFilter reports whether the plan's only condition is that one
// counted column holds one of some values (the documents of a location, of
// a type, of a folder: what a client polls while a harvest runs): its
// matches are then counted from the kept counts, not read. name is the
// column's name in search_term_counts; vals the values ("" is no value).
func countedFilter(t table, p *search.Plan) (name string, vals []string, ok bool) {
	if t.name != itemsTable.name || p.Query != "" || len(p.Terms) != 1 ||
		len(p.Types)+len(p.Ranges)+len(p.Exists)+len(p.NotExists) > 0 {
		return "", nil, false
	}
	col, ok := t.strCols[p.Terms[0].Field]
	if !ok {
		return "", nil, false
	}
	if name, ok = countedColumns[col]; !ok {
		return "", nil, false
	}
	vals = []string{}
	for _, v := range p.Terms[0].Values {
		if v != "" {
			vals = append(vals, v)
		}
	}
	return name, vals, true
}

// countedTerms is the statement of a terms aggregation from the kept
// counts, and its arguments ("" when the column has no counts, or the plan
// has a condition other than countedFilter's on this column): the top
// keys, their counts and the total of the non-empty keys, as termsAggs's
// statement over the documents gives them.
func countedTerms(c *compiled, p *search.Plan, col string, size int) (string, []any) {
	name, ok := countedColumns[col]
	if !ok || c.t.name != itemsTable.name {
		return "", nil
	}
	q := &query{}
	keys := ""
	if !matchesEverything(p) {
		filter, vals, ok := countedFilter(c.t, p)
		if !ok || filter != name {
			return "", nil
		}
		keys = fmt.Sprintf(" AND k = ANY(%s::text[])", q.arg(vals))
	}
	return fmt.Sprintf(`SELECT k, sum(n)::bigint AS cnt, sum(sum(n)) OVER ()::float8 FROM search_term_counts
WHERE col = %s%s AND k <> ''%s
GROUP BY k HAVING sum(n) > 0 ORDER BY cnt DESC, k COLLATE "C" LIMIT %s`, q.arg(name), countedVis(c, q), keys, q.arg(size)), q.args
}

// countedVis is the condition on the visibility classes of kept counts
// the caller may see.
func countedVis(c *compiled, q *query) string {
	if c.visAll {
		return ""
	}
	return fmt.Sprintf(" AND vis = ANY(%s::integer[])", q.arg(nonNil32(c.r.classes)))
}

// countedTotal is the number of matches of a plan countedFilter accepts,
// from the kept counts: exact, without reading the documents.
func (e *Engine) countedTotal(ctx context.Context, c *compiled, name string, vals []string) (int64, error) {
	q := &query{}
	stmt := fmt.Sprintf(`SELECT coalesce(sum(n), 0)::bigint FROM search_term_counts WHERE col = %s%s AND k = ANY(%s::text[])`,
		q.arg(name), countedVis(c, q), q.arg(vals))
	var n int64
	if err := e.queryRow(ctx, stmt, q.args).Scan(&n); err != nil {
		return 0, wrapErr(fmt.Errorf("count %s: %w", c.t.name, err))
	}
	return n, nil
}

func nonNil32(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// foldTermCounts folds the count rows the triggers appended into one row
// per key, skipping rows another fold holds; keys whose count fell to zero
// go.
func foldTermCounts(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `
WITH d AS (
    DELETE FROM search_term_counts
    WHERE ctid = ANY(ARRAY(SELECT ctid FROM search_term_counts WHERE NOT folded FOR UPDATE SKIP LOCKED))
    RETURNING vis, col, k, n)
INSERT INTO search_term_counts AS t (vis, col, k, n, folded)
SELECT vis, col, k, sum(n), true FROM d GROUP BY 1, 2, 3
ON CONFLICT (col, vis, k) WHERE folded DO UPDATE SET n = t.n + excluded.n`); err != nil {
		return wrapErr(fmt.Errorf("fold term counts: %w", err))
	}
	if _, err := conn.ExecContext(ctx, `DELETE FROM search_term_counts WHERE folded AND n = 0`); err != nil {
		return wrapErr(fmt.Errorf("fold term counts: %w", err))
	}
	return nil
}

// metricColumn is the float8 expression of a metric over a base column, ""
// when the field has none for the metric's kind (as numericSource).
func metricColumn(t table, m search.MetricPlan) string {
	if m.Kind == search.KindNumber {
		if nc, ok := t.numCols[m.Field]; ok {
			return nc.expr + "::float8"
		}
	}
	if m.Kind == search.KindDate {
		if col, ok := t.dateCols[m.Field]; ok {
			return "extract(epoch FROM " + col + ")::float8"
		}
	}
	return ""
}

// baseAggs computes base-column aggregations in one statement: GROUPING
// SETS group by each terms column (and () for the metrics), then a window
// keeps the top buckets of each set (count descending, then key in byte
// order) and the total of its non-empty keys, as termsAggs does.
func (e *Engine) baseAggs(ctx context.Context, c *compiled, b *baseAggPlan, out *search.AggregationResults) error {
	st := c.stmt()
	var cols []string
	colIdx := map[string]int{}
	colSize := map[string]int{}
	for _, ta := range b.terms {
		col := c.t.strCols[ta.Field]
		if _, ok := colIdx[col]; !ok {
			colIdx[col] = len(cols)
			cols = append(cols, col)
		}
		colSize[col] = max(colSize[col], ta.Size)
	}
	var exprs []string
	exprIdx := map[string]int{}
	for _, m := range b.metrics {
		x := metricColumn(c.t, m)
		if _, ok := exprIdx[x]; !ok {
			exprIdx[x] = len(exprs)
			exprs = append(exprs, x)
		}
	}
	n := len(cols)
	all := 1<<n - 1 // GROUPING() of the () set
	mask := func(i int) int { return all &^ (1 << (n - 1 - i)) }
	sel := []string{"0 AS g", "NULL::text AS k", "count(*) AS n"}
	group := ""
	if n > 0 {
		grouping := "GROUPING(" + strings.Join(cols, ", ") + ")"
		var whens, sets []string
		for i, col := range cols {
			whens = append(whens, fmt.Sprintf("WHEN %d THEN %s", mask(i), col))
			sets = append(sets, "("+col+")")
		}
		if len(exprs) > 0 {
			sets = append(sets, "()")
		}
		sel[0] = grouping + " AS g"
		sel[1] = "CASE " + grouping + " " + strings.Join(whens, " ") + " END AS k"
		group = "\nGROUP BY GROUPING SETS (" + strings.Join(sets, ", ") + ")"
	} else {
		all = 0
	}
	for i, x := range exprs {
		sel = append(sel, fmt.Sprintf("min(%[1]s) AS min%[2]d, max(%[1]s) AS max%[2]d, avg(%[1]s) AS avg%[2]d, sum(%[1]s) AS sum%[2]d", x, i))
	}
	var limits []string
	for i, col := range cols {
		limits = append(limits, fmt.Sprintf("WHEN %d THEN %s::bigint", mask(i), st.arg(colSize[col])))
	}
	limit := "1"
	if len(limits) > 0 {
		limit = "CASE s.g " + strings.Join(limits, " ") + " ELSE 1 END"
	}
	stmt := fmt.Sprintf(`SELECT s.* FROM (
    SELECT a.*, row_number() OVER (PARTITION BY a.g ORDER BY a.n DESC, a.k COLLATE "C") AS rn,
           sum(a.n) OVER (PARTITION BY a.g) AS tot
    FROM (SELECT %s FROM %s WHERE %s%s) a
    WHERE a.g = %d OR a.k <> ''
) s
WHERE s.rn <= %s
ORDER BY s.g, s.rn`, strings.Join(sel, ", "), st.from(), c.where, group, all, limit)
	rows, err := e.query(ctx, stmt, st.q.args)
	if err != nil {
		return wrapErr(fmt.Errorf("aggregate: %w", err))
	}
	defer rows.Close()
	buckets := make([][]search.Bucket, n)
	totals := make([]int64, n)
	var metrics []stats
	for rows.Next() {
		var g int
		var k sql.NullString
		var cnt, rn int64
		var tot float64
		row := make([]stats, len(exprs))
		dest := []any{&g, &k, &cnt}
		for i := range row {
			dest = append(dest, &row[i].min, &row[i].max, &row[i].avg, &row[i].sum)
		}
		dest = append(dest, &rn, &tot)
		if err := rows.Scan(dest...); err != nil {
			return wrapErr(fmt.Errorf("aggregate: %w", err))
		}
		if g == all {
			metrics = row
			continue
		}
		for i := range cols {
			if mask(i) == g {
				buckets[i] = append(buckets[i], search.Bucket{Key: k.String, Count: cnt})
				totals[i] = int64(tot)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return wrapErr(fmt.Errorf("aggregate: %w", err))
	}
	if len(b.terms) > 0 {
		out.Terms = map[string]search.TermsResult{}
	}
	for _, ta := range b.terms {
		i := colIdx[c.t.strCols[ta.Field]]
		r := search.TermsResult{Buckets: []search.Bucket{}}
		var in int64
		for _, bk := range buckets[i][:min(ta.Size, len(buckets[i]))] {
			r.Buckets = append(r.Buckets, bk)
			in += bk.Count
		}
		r.OthersCount = totals[i] - in
		out.Terms[ta.Name] = r
	}
	if len(b.metrics) > 0 {
		out.Metrics = map[string]*float64{}
	}
	for _, m := range b.metrics {
		var s stats
		if metrics != nil {
			s = metrics[exprIdx[metricColumn(c.t, m)]]
		}
		out.Metrics[m.Name] = s.value(m.Type)
	}
	return nil
}

// stats are the numeric aggregates of one field over the matching documents.
type stats struct{ min, max, avg, sum sql.NullFloat64 }

// value is the metric of the given type: nil when no value was found, except
// sum, which is 0 when nothing was summed.
func (s stats) value(metric string) *float64 {
	var v sql.NullFloat64
	switch metric {
	case search.MetricMin:
		v = s.min
	case search.MetricMax:
		v = s.max
	case search.MetricAvg:
		v = s.avg
	case search.MetricSum:
		v = s.sum
		v.Valid = true
	}
	if !v.Valid {
		return nil
	}
	f := v.Float64
	return &f
}
