package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// Search runs an item search.
func (e *Engine) Search(ctx context.Context, req search.Request, vis search.Visibility) (*search.Response, error) {
	now := time.Now()
	plan, err := e.plan(ctx, search.ScopeItems, func(cat *search.Catalogue) (*search.Plan, error) {
		return search.Compile(req, cat, now)
	})
	if err != nil {
		return nil, err
	}
	res, err := e.execute(ctx, itemsTable, plan, vis, "")
	if err != nil {
		return nil, err
	}
	resp := &search.Response{
		Query: req.Query, Limit: plan.Limit, Page: plan.Page,
		TotalHits: res.total, Results: []search.Result{}, Filters: req.Filters,
		Aggregations: res.aggs, HitCounts: res.hitCounts,
	}
	for _, h := range res.hits {
		resp.Results = append(resp.Results, search.Result{Result: h.doc, Highlight: h.highlights, Score: h.score})
	}
	return resp, nil
}

// SearchSegments runs a segment search.
func (e *Engine) SearchSegments(ctx context.Context, req search.SegmentRequest, vis search.Visibility) (*search.SegmentResponse, error) {
	now := time.Now()
	plan, err := e.plan(ctx, search.ScopeSegments, func(cat *search.Catalogue) (*search.Plan, error) {
		return search.CompileSegments(req, cat, now)
	})
	if err != nil {
		return nil, err
	}
	res, err := e.execute(ctx, segmentsTable, plan, vis, "d.time")
	if err != nil {
		return nil, err
	}
	resp := search.NewSegmentResponse(req, plan)
	resp.TotalHits = res.total
	for _, h := range res.hits {
		resp.Results = append(resp.Results, search.SegmentResult{Result: h.doc, Score: h.score})
	}
	return resp, nil
}

// GetSegment returns one segment.
func (e *Engine) GetSegment(ctx context.Context, id string, vis search.Visibility) (*search.Segment, error) {
	var doc string
	var lg, cg models.Strings
	err := e.db.QueryRowContext(ctx, `SELECT doc::text, location_groups, container_groups FROM search_segments WHERE id = $1`, id).Scan(&doc, &lg, &cg)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, search.ErrNotFound
	}
	if err != nil {
		return nil, wrapErr(fmt.Errorf("get segment %s: %w", id, err))
	}
	if !vis.Allows(lg, cg) {
		return nil, search.ErrNotVisible
	}
	seg, err := search.DecodeSegment([]byte(doc))
	if err != nil {
		return nil, err
	}
	seg.LocationGroups, seg.ContainerGroups = lg, cg
	return seg, nil
}

// Analytics counts the visible documents by category.
func (e *Engine) Analytics(ctx context.Context, vis search.Visibility) (*search.Analytics, error) {
	cat, _, err := e.catalogue(ctx, search.ScopeItems, false)
	if err != nil {
		return nil, err
	}
	res, err := e.execute(ctx, itemsTable, search.AnalyticsPlan(cat), vis, "")
	if err != nil {
		return nil, err
	}
	return search.AnalyticsFromResponse(&search.Response{Aggregations: res.aggs}), nil
}

// plan compiles with the cached catalogue; a request it refuses is compiled
// again with a fresh one, in case another process learnt the field.
func (e *Engine) plan(ctx context.Context, scope search.Scope, compile func(*search.Catalogue) (*search.Plan, error)) (*search.Plan, error) {
	cat, fresh, err := e.catalogue(ctx, scope, false)
	if err != nil {
		return nil, err
	}
	p, err := compile(cat)
	if _, invalid := apperr.As(err); invalid && !fresh {
		if cat, _, err = e.catalogue(ctx, scope, true); err != nil {
			return nil, err
		}
		p, err = compile(cat)
	}
	return p, err
}

type hit struct {
	id         string
	full       map[string]any // the whole document (highlights read it)
	doc        map[string]any // what the result returns
	score      float64
	highlights []search.Highlight
}

type execResult struct {
	total     int64
	hits      []hit
	aggs      *search.AggregationResults
	hitCounts map[string]int64
	// counted: the page statement counted the matches (and hit counts).
	counted bool
}

// execute runs a plan: the page, the total (with hit counts), each
// aggregation, and the highlights of the page.
func (e *Engine) execute(ctx context.Context, t table, p *search.Plan, vis search.Visibility, defaultOrder string) (*execResult, error) {
	p = t.aliased(p)
	r, err := e.resolve(ctx, t, p, vis)
	if err != nil {
		return nil, err
	}
	c := compile(t, p, vis, r)
	res := &execResult{}

	// The page, the count and the aggregations are independent statements:
	// they run at once, each on its own connection.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	run := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
	var counted execResult
	// A page of a text search ranks every match: it counts them as well.
	// Hit counts stay with count: testing each match for every type costs
	// more than estimating them from a sample.
	pageCounts := p.Limit > 0 && c.ranksAll() && !p.WantHitCounts
	if p.Limit > 0 {
		run(func() error { return e.page(ctx, t, c, p, defaultOrder, res) })
	}
	if (p.Limit > 0 || p.WantHitCounts) && !pageCounts && !p.Keyset {
		run(func() error { return e.count(ctx, t, c, p, &counted) })
	}
	aggs := len(p.Metrics)+len(p.TermsAggs)+len(p.Histograms) > 0
	var metrics, terms, histograms, based search.AggregationResults
	if aggs {
		// Aggregations over base columns share one scan; the others run
		// as statements of their own.
		base, rest := splitBaseAggs(t, p)
		if base != nil {
			run(func() error { return e.baseAggs(ctx, c, base, &based) })
		}
		run(func() error { return e.metrics(ctx, t, c, rest, &metrics) })
		run(func() error { return e.termsAggs(ctx, t, c, rest, &terms) })
		run(func() error { return e.histograms(ctx, t, c, rest, &histograms) })
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if aggs {
		res.aggs = &search.AggregationResults{Metrics: metrics.Metrics, Terms: terms.Terms, Histograms: histograms.Histograms}
		if len(p.Metrics) > 0 && res.aggs.Metrics == nil {
			res.aggs.Metrics = map[string]*float64{}
		}
		for k, v := range based.Metrics {
			res.aggs.Metrics[k] = v
		}
		if len(p.TermsAggs) > 0 && res.aggs.Terms == nil {
			res.aggs.Terms = map[string]search.TermsResult{}
		}
		for k, v := range based.Terms {
			res.aggs.Terms[k] = v
		}
	}
	if pageCounts && !res.counted && !p.Keyset {
		// A page past the end has no row to carry the count.
		if err := e.count(ctx, t, c, p, &counted); err != nil {
			return nil, err
		}
	}
	if !res.counted {
		res.total, res.hitCounts = counted.total, counted.hitCounts
	}
	if p.Page == 0 && p.Limit > 0 && len(res.hits) < p.Limit && !p.Keyset {
		// The whole result is on the first page: exact whatever the count.
		res.total = int64(len(res.hits))
	}
	return res, nil
}

// resolve reads what the plan needs from the dictionaries: the visibility
// classes the user may see and the ids of the paths it names.
func (e *Engine) resolve(ctx context.Context, t table, p *search.Plan, vis search.Visibility) (*resolved, error) {
	r := &resolved{}
	if t.visClass && !vis.All {
		classes, err := e.visibleClasses(ctx, vis)
		if err != nil {
			return nil, err
		}
		r.classes = classes
	}
	var paths []string
	if t.keys {
		for _, ec := range p.Exists {
			paths = append(paths, ec.Leaves...)
		}
		for _, ec := range p.NotExists {
			paths = append(paths, ec.Leaves...)
		}
		for _, hc := range p.HitCounts {
			paths = append(paths, hc.Leaves...)
		}
	}
	if t.numbers {
		for _, rc := range p.Ranges {
			paths = append(paths, rc.Field)
		}
	}
	if len(paths) > 0 {
		ids, err := e.pathIDs(ctx, paths, false)
		if err != nil {
			return nil, err
		}
		r.paths = ids
	}
	return r, nil
}

// page reads the hits of the requested page, their documents and highlights.
func (e *Engine) page(ctx context.Context, t table, c *compiled, p *search.Plan, defaultOrder string, res *execResult) error {
	st := c.stmt()
	var stmt string
	counting := c.ranksAll() && !p.WantHitCounts
	if counting {
		// Every match is ranked to find the page: keep them (id, score and
		// sort keys only) and count them in the same pass. The total is
		// then exact, for the cost of one small tuplestore.
		cols := []string{"d.id", c.score + " AS score"}
		var order []string
		for i, k := range p.Sort {
			dir := "DESC"
			if k.Asc {
				dir = "ASC"
			}
			coll := ""
			if k.Kind != search.KindNumber && k.Kind != search.KindDate {
				coll = ` COLLATE "C"`
			}
			cols = append(cols, fmt.Sprintf("%s AS k%d", st.sortExpr(k), i))
			order = append(order, fmt.Sprintf("m.k%d%s %s NULLS LAST", i, coll, dir))
		}
		order = append(order, "m.score DESC", "m.id")
		limit, offset := st.arg(p.Limit), st.arg(p.Offset())
		stmt = fmt.Sprintf(`WITH m AS MATERIALIZED (SELECT %s FROM %s WHERE %s)
SELECT m.id, m.score, (SELECT count(*) FROM m) FROM m ORDER BY %s LIMIT %s OFFSET %s`,
			strings.Join(cols, ", "), st.from(), c.where, strings.Join(order, ", "), limit, offset)
	} else {
		order := st.orderBy(p, defaultOrder)
		limit, offset := st.arg(p.Limit), st.arg(p.Offset())
		stmt = fmt.Sprintf("SELECT d.id, %s AS score, NULL::bigint FROM %s WHERE %s ORDER BY %s LIMIT %s OFFSET %s",
			c.score, st.from(), c.where, order, limit, offset)
	}
	rows, err := e.query(ctx, stmt, st.q.args)
	if err != nil {
		return wrapErr(fmt.Errorf("search %s: %w", t.name, err))
	}
	var hits []hit
	for rows.Next() {
		h := hit{highlights: []search.Highlight{}}
		var total sql.NullInt64
		if err := rows.Scan(&h.id, &h.score, &total); err != nil {
			rows.Close()
			return wrapErr(fmt.Errorf("search %s: %w", t.name, err))
		}
		if total.Valid {
			res.total, res.counted = total.Int64, true
		}
		hits = append(hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return wrapErr(fmt.Errorf("search %s: %w", t.name, err))
	}
	if err := e.fetchDocs(ctx, t, p, hits); err != nil {
		return err
	}
	if c.tsq != "" && len(hits) > 0 && !p.Keyset {
		if err := e.highlight(ctx, t, p, hits); err != nil {
			return err
		}
	}
	res.hits = hits
	return nil
}

func decodeDoc(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// count computes the total and the hit counts: exactly up to the exact
// total limit, else estimated from a block sample of the table (the same
// sample every time, so that pages agree).
func (e *Engine) count(ctx context.Context, t table, c *compiled, p *search.Plan, res *execResult) error {
	if name, vals, ok := countedFilter(t, p); ok && !p.WantHitCounts {
		n, err := e.countedTotal(ctx, c, name, vals)
		res.total = n
		return err
	}
	if lim := e.exactTotalLimit; lim > 0 {
		// The estimate is started beside the exact count rather than after
		// it: the broad queries that need it get it in the time of the
		// slower of the two. When the count turns out exact the estimate
		// is left to finish on its own (cancelling it would cost the
		// server more than letting it end) and dropped.
		type estimate struct {
			res execResult
			err error
		}
		est := make(chan estimate, 1)
		sampleRows := e.sampleRows // read here: the goroutine may outlive the search
		go func() {
			var r execResult
			err := e.estimate(context.WithoutCancel(ctx), t, c, p, lim, sampleRows, &r)
			est <- estimate{r, err}
		}()
		st := c.stmt()
		stmt := fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s WHERE %s LIMIT %s) s", st.from(), c.where, st.arg(lim+1))
		var n int64
		if err := e.queryRow(ctx, stmt, st.q.args).Scan(&n); err != nil {
			return wrapErr(fmt.Errorf("count %s: %w", t.name, err))
		}
		if n <= int64(lim) {
			res.total = n
			if !p.WantHitCounts {
				return nil
			}
			return e.countScan(ctx, t, c, p, res, 100)
		}
		var r estimate
		select {
		case r = <-est:
		case <-ctx.Done():
			return ctx.Err()
		}
		if r.err != nil {
			return r.err
		}
		res.total, res.hitCounts = r.res.total, r.res.hitCounts
		return nil
	}
	return e.countScan(ctx, t, c, p, res, 100)
}

// estimate counts matches and hit counts from a block sample of about
// sampleRows rows (the whole table when smaller), the total kept above the
// exact limit and at most the table's size.
func (e *Engine) estimate(ctx context.Context, t table, c *compiled, p *search.Plan, lim int, sampleRows float64, res *execResult) error {
	var rows float64
	if err := e.queryRow(ctx, "SELECT reltuples FROM pg_class WHERE oid = $1::regclass", []any{c.base}).Scan(&rows); err != nil {
		return wrapErr(fmt.Errorf("count %s: %w", t.name, err))
	}
	pct := 100.0
	if rows > 0 {
		pct = min(100, max(0.1, 100*sampleRows/rows))
	}
	if err := e.countScan(ctx, t, c, p, res, pct); err != nil {
		return err
	}
	res.total = max(res.total, int64(lim)+1)
	if rows > 0 {
		res.total = min(res.total, max(int64(rows), int64(lim)+1))
	}
	return nil
}

// countScan counts matches and hit counts over pct percent of the table's
// blocks, scaled up.
func (e *Engine) countScan(ctx context.Context, t table, c *compiled, p *search.Plan, res *execResult, pct float64) error {
	st := c.stmt()
	sample := ""
	if pct < 100 {
		sample = fmt.Sprintf(" TABLESAMPLE SYSTEM (%s::float8) REPEATABLE (7)", st.arg(pct))
	}
	cols := []string{"count(*)"}
	var types []string
	for _, hc := range p.HitCounts {
		if len(hc.Leaves) == 0 {
			continue
		}
		types = append(types, hc.Type)
		cols = append(cols, fmt.Sprintf("count(*) FILTER (WHERE %s)", st.hasAny(hc.Leaves)))
	}
	dest := make([]any, len(cols))
	counts := make([]int64, len(cols))
	for i := range counts {
		dest[i] = &counts[i]
	}
	from := st.from() + sample
	stmt := fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(cols, ", "), from, c.where)
	if err := e.queryRow(ctx, stmt, st.q.args).Scan(dest...); err != nil {
		return wrapErr(fmt.Errorf("count %s: %w", t.name, err))
	}
	scale := func(n int64) int64 { return int64(math.Round(float64(n) * 100 / pct)) }
	res.total = scale(counts[0])
	if p.WantHitCounts {
		res.hitCounts = map[string]int64{}
		for i, typ := range types {
			if n := scale(counts[i+1]); n > 0 {
				res.hitCounts[typ] = n
			}
		}
	}
	return nil
}

func (e *Engine) metrics(ctx context.Context, t table, c *compiled, p *search.Plan, out *search.AggregationResults) error {
	if len(p.Metrics) == 0 {
		return nil
	}
	out.Metrics = map[string]*float64{}
	type key struct {
		field string
		kind  search.Kind
	}
	done := map[key]*stats{}
	for _, m := range p.Metrics {
		k := key{m.Field, m.Kind}
		if m.Type == search.MetricCardinality {
			st := c.stmt()
			src := st.valueSource(m.Field)
			stmt := fmt.Sprintf("SELECT count(DISTINCT e.k) FROM %s, LATERAL %s WHERE %s", st.from(), src, c.where)
			var n int64
			if err := e.queryRow(ctx, stmt, st.q.args).Scan(&n); err != nil {
				return wrapErr(fmt.Errorf("aggregate %s: %w", m.Name, err))
			}
			f := float64(n)
			out.Metrics[m.Name] = &f
			continue
		}
		s, ok := done[k]
		if !ok {
			st := c.stmt()
			src := st.numericSource(m.Field, m.Kind)
			stmt := fmt.Sprintf("SELECT min(e.x), max(e.x), avg(e.x), sum(e.x) FROM %s, LATERAL %s WHERE %s", st.from(), src, c.where)
			s = &stats{}
			if err := e.queryRow(ctx, stmt, st.q.args).Scan(&s.min, &s.max, &s.avg, &s.sum); err != nil {
				return wrapErr(fmt.Errorf("aggregate %s: %w", m.Name, err))
			}
			done[k] = s
		}
		out.Metrics[m.Name] = s.value(m.Type)
	}
	return nil
}

func (e *Engine) termsAggs(ctx context.Context, t table, c *compiled, p *search.Plan, out *search.AggregationResults) error {
	if len(p.TermsAggs) == 0 {
		return nil
	}
	out.Terms = map[string]search.TermsResult{}
	for _, ta := range p.TermsAggs {
		st := c.stmt()
		var stmt string
		var args []any
		col, isCol := t.strCols[ta.Field]
		if counted, countedArgs := countedTerms(c, p, col, ta.Size); counted != "" {
			stmt, args = counted, countedArgs
		} else if isCol {
			size := st.arg(ta.Size)
			stmt = fmt.Sprintf(`SELECT %[1]s AS k, count(*) AS n, sum(count(*)) OVER () FROM %[2]s WHERE %[3]s AND %[1]s <> ''
GROUP BY %[1]s ORDER BY n DESC, %[1]s COLLATE "C" LIMIT %[4]s`, col, st.from(), c.where, size)
		} else {
			src := st.valueSource(ta.Field)
			size := st.arg(ta.Size)
			stmt = fmt.Sprintf(`SELECT e.k, count(*) AS n, sum(count(*)) OVER () FROM %s, LATERAL %s WHERE %s
GROUP BY e.k ORDER BY n DESC, e.k COLLATE "C" LIMIT %s`, st.from(), src, c.where, size)
		}
		if args == nil {
			args = st.q.args
		}
		rows, err := e.query(ctx, stmt, args)
		if err != nil {
			return wrapErr(fmt.Errorf("aggregate %s: %w", ta.Name, err))
		}
		r := search.TermsResult{Buckets: []search.Bucket{}}
		var total, inBuckets int64
		for rows.Next() {
			var b search.Bucket
			var all float64
			if err := rows.Scan(&b.Key, &b.Count, &all); err != nil {
				rows.Close()
				return wrapErr(fmt.Errorf("aggregate %s: %w", ta.Name, err))
			}
			total = int64(all)
			inBuckets += b.Count
			r.Buckets = append(r.Buckets, b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return wrapErr(fmt.Errorf("aggregate %s: %w", ta.Name, err))
		}
		r.OthersCount = total - inBuckets
		out.Terms[ta.Name] = r
	}
	return nil
}

// maxHistogramRows bounds what a histogram query may return before the
// request is refused (a tiny interval over a wide field).
const maxHistogramRows = 100_000

func (e *Engine) histograms(ctx context.Context, t table, c *compiled, p *search.Plan, out *search.AggregationResults) error {
	if len(p.Histograms) == 0 {
		return nil
	}
	out.Histograms = map[string]search.HistogramResult{}
	for _, h := range p.Histograms {
		st := c.stmt()
		iv := st.arg(h.Interval)
		src := st.numericSource(h.Field, h.Kind)
		lim := st.arg(maxHistogramRows + 1)
		stmt := fmt.Sprintf(`SELECT floor(e.x / %[1]s::float8)::bigint * %[1]s::bigint AS k, count(*) FROM %[2]s, LATERAL %[3]s
WHERE %[4]s AND e.x IS NOT NULL AND abs(e.x / %[1]s::float8) < 9e15
GROUP BY 1 LIMIT %[5]s`, iv, st.from(), src, c.where, lim)
		rows, err := e.query(ctx, stmt, st.q.args)
		if err != nil {
			return wrapErr(fmt.Errorf("aggregate %s: %w", h.Name, err))
		}
		counts := map[int64]int64{}
		for rows.Next() {
			var k, n int64
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return wrapErr(fmt.Errorf("aggregate %s: %w", h.Name, err))
			}
			counts[k] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return wrapErr(fmt.Errorf("aggregate %s: %w", h.Name, err))
		}
		if len(counts) > maxHistogramRows {
			return apperr.InvalidField("aggregations.histograms", fmt.Sprintf("histogram %q has too many buckets: raise interval", h.Name))
		}
		buckets, err := search.HistogramBuckets(h.Name, counts, h.Interval, h.MinCount)
		if err != nil {
			return err
		}
		out.Histograms[h.Name] = search.HistogramResult{Buckets: buckets}
	}
	return nil
}

// fetchDocs reads the documents of a page (apart from the ranking query,
// so that it never reads more than the page).
func (e *Engine) fetchDocs(ctx context.Context, t table, p *search.Plan, hits []hit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	if t.extra {
		return e.fetchItemDocs(ctx, p, hits, ids)
	}
	rows, err := e.query(ctx, fmt.Sprintf("SELECT id, doc::text FROM %s WHERE id = ANY($1::text[])", t.name), []any{ids})
	if err != nil {
		return wrapErr(fmt.Errorf("read results: %w", err))
	}
	defer rows.Close()
	docs := make(map[string]map[string]any, len(hits))
	for rows.Next() {
		var id, doc string
		if err := rows.Scan(&id, &doc); err != nil {
			return wrapErr(fmt.Errorf("read results: %w", err))
		}
		m, err := decodeDoc(doc)
		if err != nil {
			return fmt.Errorf("read result %s: %w", id, err)
		}
		docs[id] = m
	}
	if err := rows.Err(); err != nil {
		return wrapErr(fmt.Errorf("read results: %w", err))
	}
	setDocs(p, hits, docs)
	return nil
}

func setDocs(p *search.Plan, hits []hit, docs map[string]map[string]any) {
	for i := range hits {
		m := docs[hits[i].id]
		if m == nil {
			// Deleted between the two reads.
			m = map[string]any{search.FieldID: hits[i].id}
		}
		hits[i].full = m
		hits[i].doc = search.Project(m, p.Only)
	}
}

// fetchItemDocs reads item documents: their columns and extra, the rest
// of the document (see extraOf).
func (e *Engine) fetchItemDocs(ctx context.Context, p *search.Plan, hits []hit, ids []string) error {
	rows, err := e.query(ctx, `SELECT id, type, name, extension, mime_type, location_id, location_name, container_id, container_name,
       size, last_modified, coalesce(extra::text, '{}') FROM search_documents WHERE id = ANY($1::text[])`, []any{ids})
	if err != nil {
		return wrapErr(fmt.Errorf("read results: %w", err))
	}
	defer rows.Close()
	docs := make(map[string]map[string]any, len(hits))
	for rows.Next() {
		var id, extra string
		str := make([]string, 8)
		var size sql.NullInt64
		var lm sql.NullTime
		if err := rows.Scan(&id, &str[0], &str[1], &str[2], &str[3], &str[4], &str[5], &str[6], &str[7], &size, &lm, &extra); err != nil {
			return wrapErr(fmt.Errorf("read results: %w", err))
		}
		m, err := decodeDoc(extra)
		if err != nil {
			return fmt.Errorf("read result %s: %w", id, err)
		}
		m[search.FieldID] = id
		fields := []string{search.FieldType, search.FieldName, search.FieldExtension, search.FieldMimeType,
			search.FieldLocationID, search.FieldLocationName, search.FieldContainerID, search.FieldContainerName}
		for i, f := range fields {
			// A field extra holds is one its column could not give back.
			if _, kept := m[f]; !kept && str[i] != "" {
				m[f] = str[i]
			}
		}
		if _, kept := m[search.FieldSize]; !kept && size.Valid {
			m[search.FieldSize] = json.Number(strconv.FormatInt(size.Int64, 10))
		}
		if _, kept := m[search.FieldLastModified]; !kept && lm.Valid {
			m[search.FieldLastModified] = lm.Time.UTC().Format(time.RFC3339Nano)
		}
		docs[id] = m
	}
	if err := rows.Err(); err != nil {
		return wrapErr(fmt.Errorf("read results: %w", err))
	}
	setDocs(p, hits, docs)
	return nil
}

// fragmentSep separates ts_headline fragments; a character documents do not
// hold in practice (SYMBOL FOR RECORD SEPARATOR).
const fragmentSep = "\u241e"

// headlineOptions: up to three fragments of a field around its matches.
var headlineOptions = `StartSel=` + search.HighlightPre + `, StopSel=` + search.HighlightPost +
	`, MaxFragments=3, MaxWords=24, MinWords=6, FragmentDelimiter="` + fragmentSep + `"`

// maxHighlightText bounds the text of one field given to ts_headline.
const maxHighlightText = 20000

// highlight fills the highlights of the page: for each string field (of the
// searched fields) whose own text matches the query, ts_headline fragments.
func (e *Engine) highlight(ctx context.Context, t table, p *search.Plan, hits []hit) error {
	var idx []int32
	var keys, texts []string
	for i, h := range hits {
		for _, f := range search.TextFields(h.full, p.SearchFields, maxHighlightText) {
			idx = append(idx, int32(i))
			keys = append(keys, f.Path)
			texts = append(texts, f.Text)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	q := &query{}
	tsq := tsQuery(q, p)
	// A word matched only inside a compound ("mp4" in "holiday_video.mp4")
	// is not a word of the raw text for ts_headline: such fields are
	// highlighted in their split form ("holiday video <em>mp4</em>").
	stmt := fmt.Sprintf(`
SELECT h.i, h.key, CASE WHEN position(%[6]s in h.raw) > 0 THEN h.raw
                        ELSE ts_headline('`+wordsConfig+`', regexp_replace(h.t, '[^[:alnum:]]+', ' ', 'g'), %[1]s, %[2]s) END
FROM (
    SELECT u.i, u.key, u.t, ts_headline('`+wordsConfig+`', u.t, %[1]s, %[2]s) AS raw
    FROM unnest(%[3]s::int[], %[4]s::text[], %[5]s::text[]) AS u(i, key, t)
    WHERE to_tsvector('`+wordsConfig+`', search_tsv_text(u.t)) @@ %[1]s
) h
ORDER BY h.i, h.key`, tsq, q.arg(headlineOptions), q.arg(idx), q.arg(keys), q.arg(texts), q.arg(search.HighlightPre))
	rows, err := e.query(ctx, stmt, q.args)
	if err != nil {
		return wrapErr(fmt.Errorf("highlight: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var key, headline string
		if err := rows.Scan(&i, &key, &headline); err != nil {
			return wrapErr(fmt.Errorf("highlight: %w", err))
		}
		var frags []string
		for _, f := range strings.Split(headline, fragmentSep) {
			if f = strings.TrimSpace(f); strings.Contains(f, search.HighlightPre) {
				frags = append(frags, f)
			}
		}
		if len(frags) > 0 && i >= 0 && i < len(hits) {
			hits[i].highlights = append(hits[i].highlights, search.Highlight{Field: key, Fragments: frags})
		}
	}
	if err := rows.Err(); err != nil {
		return wrapErr(fmt.Errorf("highlight: %w", err))
	}
	for i := range hits {
		hl := hits[i].highlights
		// The name first: it is what a result list shows.
		sort.SliceStable(hl, func(a, b int) bool { return hl[a].Field == search.FieldName && hl[b].Field != search.FieldName })
	}
	return nil
}
