package postgres

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/metaharvest/metaharvest/search"
)

// table describes an index: its table (alias d), where the nested fields
// of its documents live, and the fields that have a column of their own
// (btree-indexed, cheaper than jsonb).
type table struct {
	name string
	// rankAll: a text search ranks every match to find its page (no index
	// walks the order of a relevance sort).
	rankAll bool
	// visClass: visibility is an integer class (vis, see search_visibility)
	// rather than the two group lists. keys: an int[] column holds the ids
	// of the document's leaf paths (exists, hit counts). numbers: nested
	// ranges read search_numbers.
	visClass, keys, numbers bool
	// extra: nested fields are read from d.extra through SQL/JSON paths
	// (item documents); otherwise from the flat map d.flat, leaf path ->
	// values (segments). Nested dates are d.dates, leaf path -> seconds.
	extra bool
	// strCols: string fields (terms, string sorts, terms aggregations).
	strCols map[string]string
	// numCols: number fields; integer ones compare with integer bounds so
	// that their btree index applies.
	numCols map[string]numCol
	// dateCols: date fields (timestamptz).
	dateCols map[string]string
	// aliases: nested fields whose value is always that of a base field
	// (filters, sorts and aggregations read the base field's column).
	aliases map[string]string
}

type numCol struct {
	expr    string
	integer bool
}

var (
	itemsTable = table{
		name:     "search_documents",
		rankAll:  true,
		visClass: true,
		keys:     true,
		numbers:  true,
		extra:    true,
		strCols: map[string]string{
			search.FieldID: "d.id", search.FieldType: "d.type", search.FieldName: "d.name",
			search.FieldExtension: "d.extension", search.FieldMimeType: "d.mime_type",
			search.FieldLocationID: "d.location_id", search.FieldLocationName: "d.location_name",
			search.FieldContainerID: "d.container_id", search.FieldContainerName: "d.container_name",
		},
		numCols:  map[string]numCol{search.FieldSize: {"d.size", true}},
		dateCols: map[string]string{search.FieldLastModified: "d.last_modified"},
		// The store extractor records the file's name, size and extension,
		// which an item's document has as name, size and extension. Their
		// copies are no numbers rows (search_numbers) and are read from
		// the indexed columns.
		aliases: map[string]string{"store.name": search.FieldName, "store.size": search.FieldSize,
			"store.extension": search.FieldExtension},
	}
	segmentsTable = table{
		name:     "search_segments",
		strCols:  map[string]string{search.FieldID: "d.id", "item_id": "d.item_id"},
		numCols:  map[string]numCol{"time": {"d.time", false}},
		dateCols: map[string]string{},
	}
)

// aliased is p with the fields of t's aliases renamed for filters, sorts
// and aggregations (exists and hit counts keep them: the keys tell whether
// the document has them).
func (t table) aliased(p *search.Plan) *search.Plan {
	if len(t.aliases) == 0 {
		return p
	}
	a := func(f string) string {
		if to, ok := t.aliases[f]; ok {
			return to
		}
		return f
	}
	q := *p
	q.Terms = slices.Clone(p.Terms)
	for i := range q.Terms {
		q.Terms[i].Field = a(q.Terms[i].Field)
	}
	q.Ranges = slices.Clone(p.Ranges)
	for i := range q.Ranges {
		q.Ranges[i].Field = a(q.Ranges[i].Field)
	}
	q.Sort = slices.Clone(p.Sort)
	for i := range q.Sort {
		q.Sort[i].Field = a(q.Sort[i].Field)
	}
	q.TermsAggs = slices.Clone(p.TermsAggs)
	for i := range q.TermsAggs {
		q.TermsAggs[i].Field = a(q.TermsAggs[i].Field)
	}
	q.Metrics = slices.Clone(p.Metrics)
	for i := range q.Metrics {
		q.Metrics[i].Field = a(q.Metrics[i].Field)
	}
	q.Histograms = slices.Clone(p.Histograms)
	for i := range q.Histograms {
		q.Histograms[i].Field = a(q.Histograms[i].Field)
	}
	return &q
}

// leafPath is the SQL/JSON path of the values of a leaf path in a
// document: lax, so that lists met on the way are unwrapped, and the
// leaf's own list (and a list in it) too, as the flat map flattens them.
func leafPath(field string) string {
	var b strings.Builder
	b.WriteString("lax $")
	for _, seg := range strings.Split(field, ".") {
		b.WriteByte('.')
		q, _ := json.Marshal(seg)
		b.Write(q)
	}
	b.WriteString("[*][*]")
	return b.String()
}

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
	base  string // the table the statement reads (alias d)
	q     *query
	where string
	tsq   string // tsquery expression, "" without a text query
	score string
	// visAll: the user sees every document (no visibility condition).
	visAll bool
	// keyset: the plan walks the results by _id (search.Cursor).
	keyset bool
}

// ranksAll: the page ranks every match (a text search over a table whose
// text matches have no index to walk in the order of a sort).
func (c *compiled) ranksAll() bool { return c.t.rankAll && c.tsq != "" && !c.keyset }

// stmt is one statement built on the compiled WHERE clause, with its own
// arguments (after the clause's).
type stmt struct {
	c *compiled
	q *query
}

func (c *compiled) stmt() *stmt {
	return &stmt{c: c, q: &query{args: append([]any(nil), c.q.args...)}}
}

func (s *stmt) arg(v any) string { return s.q.arg(v) }

// from is the FROM clause.
func (s *stmt) from() string { return s.c.base + " d" }

// values is a jsonb array of the values of a nested leaf path (numbers,
// strings, booleans), as the document has them.
func (s *stmt) values(field string) string {
	if s.c.t.extra {
		return fmt.Sprintf("jsonb_path_query_array(d.extra, %s::jsonpath)", s.arg(leafPath(field)))
	}
	return fmt.Sprintf("(d.flat -> %s::text)", s.arg(field))
}

// dates is a jsonb array of the instants (seconds) of a nested date leaf.
func (s *stmt) dates(field string) string {
	return fmt.Sprintf("(d.dates -> %s::text)", s.arg(field))
}

// indexedExtra is the expression of d.extra that the GIN index of the
// nested fields holds (migration 00026): the store extractor's object is
// left out, its leaves being copies of columns (itemsTable.aliases).
const indexedExtra = "(d.extra - 'store')"

// holds: a nested leaf has the value v (a string, float64 or bool), by
// an index the GIN index of the nested fields answers.
func (s *stmt) holds(field string, v any) string {
	lit, _ := json.Marshal(v)
	if s.c.t.extra {
		doc := indexedExtra
		if field == "store" || strings.HasPrefix(field, "store.") {
			doc = "d.extra" // not in the index; filters on its leaves read the columns
		}
		return fmt.Sprintf("%s @@ %s::jsonpath", doc, s.arg(strings.TrimSuffix(leafPath(field), "[*][*]")+"[*][*] == "+string(lit)))
	}
	doc, _ := json.Marshal(map[string][]any{field: {v}})
	return fmt.Sprintf("d.flat @> %s::jsonb", s.arg(string(doc)))
}

// searchText is the text of the string values at some leaf paths, for a
// full-text search restricted to them.
func (s *stmt) searchText(fields []string) string {
	if !s.c.t.extra {
		return fmt.Sprintf("search_text_flat(d.flat, %s::text[])", s.arg(fields))
	}
	var cols, paths []string
	for _, f := range fields {
		if col, ok := s.c.t.strCols[f]; ok && f != search.FieldID {
			cols = append(cols, col)
		} else {
			paths = append(paths, leafPath(f))
		}
	}
	parts := append(cols, fmt.Sprintf("search_text(d.extra, %s::text[])", s.arg(paths)))
	return "concat_ws(E'\\n', " + strings.Join(parts, ", ") + ")"
}

func compile(t table, p *search.Plan, vis search.Visibility, r *resolved) *compiled {
	c := &compiled{t: t, r: r, base: t.name, q: &query{}, score: "1::float8", visAll: vis.All}
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
		c.tsq = tsQuery(s.q, p)
		match := fmt.Sprintf("d.tsv @@ %s", c.tsq)
		if field, digest, ok := search.DigestQuery(p.Query); ok && t.extra {
			// Digests are not in the word index: a pasted one finds its
			// items through the nested fields' index.
			match = fmt.Sprintf("(%s OR %s)", match, s.holds(field, digest))
		}
		conds = append(conds, match)
		if len(p.SearchFields) > 0 {
			conds = append(conds, fmt.Sprintf("to_tsvector('"+wordsConfig+"', search_tsv_text(%s)) @@ %s", s.searchText(p.SearchFields), c.tsq))
		}
		if !p.Keyset { // a cursor walks by _id: nothing is ranked
			c.score = fmt.Sprintf("ts_rank_cd(d.tsv, %s, 32)::float8", c.tsq)
		}
	}
	if p.Keyset && p.After != "" {
		// The comparison and the page's ORDER BY d.id use the column's
		// collation alike, so that no id is skipped or read twice.
		conds = append(conds, fmt.Sprintf("d.id > %s", s.arg(p.After)))
	}
	c.keyset = p.Keyset
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
		return fmt.Sprintf("(d.flat ?| %s::text[])", s.arg(leaves))
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

// tsQuery is the tsquery expression of the plan's text query. Document text
// is indexed twice for names (each value as written, so that "video.mp4"
// is a word, and split at every non-alphanumeric run) and split for the
// rest; the query matches in either spelling: as written, or with the
// punctuation inside its words turned into spaces ("video.mp4" -> "video
// mp4"; a leading "-", quotes and spaces keep their meaning). websearch
// syntax has no prefix operator, so for prefix matching ":*" is added to
// the last lexeme of each.
func tsQuery(q *query, p *search.Plan) string {
	qa := q.arg(p.Query)
	forms := []string{
		fmt.Sprintf("websearch_to_tsquery('"+wordsConfig+"', %s)", qa),
		fmt.Sprintf("websearch_to_tsquery('"+wordsConfig+"', regexp_replace(%s, %s, ' ', 'g'))", qa, q.arg(wordPunctuation)),
	}
	if p.Prefix {
		// The last word is also a prefix as written (the start of a name:
		// "IMG_20" finds "IMG_2041.JPG"). Split, it is a prefix only when
		// splitting left it whole: the tail of a compound ("bin" of
		// "f0001513.bin") would be the prefix of nearly every word, and a
		// prefix is read in full from the word index.
		forms[0] = fmt.Sprintf(`regexp_replace(%s::text, '''$', ''':*')::tsquery`, forms[0])
		fields := strings.Fields(p.Query)
		if !wordPunctuationRE.MatchString(fields[len(fields)-1]) {
			forms[1] = fmt.Sprintf(`regexp_replace(%s::text, '''$', ''':*')::tsquery`, forms[1])
		}
	}
	return "(" + forms[0] + " || " + forms[1] + ")"
}

// wordPunctuationRE is wordPunctuation in Go's syntax (which has no
// lookaround): punctuation between two letters or digits.
var wordPunctuationRE = regexp.MustCompile(`[\p{L}\p{N}][^\p{L}\p{N}\s]+[\p{L}\p{N}]`)

// wordPunctuation matches punctuation between two letters or digits.
const wordPunctuation = `(?<=[[:alnum:]])[^[:alnum:][:space:]]+(?=[[:alnum:]])`

// termCond: the field holds one of the values. A nested field's value
// matches as a string, as the equal number and as a boolean, each a
// condition the GIN index answers.
func (s *stmt) termCond(tc search.TermCond) string {
	if col, ok := s.c.t.strCols[tc.Field]; ok {
		// An empty string is no value (as in the flat map).
		var vals []string
		for _, v := range tc.Values {
			if v != "" {
				vals = append(vals, v)
			}
		}
		switch len(vals) {
		case 0:
			return "false"
		case 1:
			// An equality, not = ANY: with it the (column, id) indexes
			// give a page in id order (migration 00028).
			return fmt.Sprintf("%s = %s::text", col, s.arg(vals[0]))
		}
		return fmt.Sprintf("%s = ANY(%s::text[])", col, s.arg(vals))
	}
	var ors []string
	for _, v := range tc.Values {
		for _, cand := range termCandidates(v) {
			ors = append(ors, s.holds(tc.Field, cand))
		}
	}
	return "(" + strings.Join(ors, " OR ") + ")"
}

// termCandidates are the values a term matches: the string, the equal
// number, the boolean.
func termCandidates(v string) []any {
	out := []any{v}
	if f, ok := search.ParseNumber(strings.TrimSpace(v)); ok {
		out = append(out, f)
	}
	switch v {
	case "true":
		out = append(out, true)
	case "false":
		out = append(out, false)
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
	var src string
	if rc.Kind == search.KindDate {
		src = s.dates(rc.Field)
	} else {
		src = s.values(rc.Field)
	}
	x := "(CASE WHEN jsonb_typeof(v) = 'number' THEN (v)::float8 END)"
	if rc.From != nil {
		cmp(x, ">=", "float8", rc.From.Seconds())
	}
	if rc.To != nil {
		cmp(x, "<=", "float8", rc.To.Seconds())
	}
	return fmt.Sprintf("EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(%s, '[]')) v WHERE %s)", src, strings.Join(parts, " AND "))
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
		return fmt.Sprintf("(CASE WHEN jsonb_typeof(%[1]s -> 0) = 'number' THEN (%[1]s -> 0)::float8 END)", s.values(k.Field))
	case search.KindDate:
		if col, ok := t.dateCols[k.Field]; ok {
			return col
		}
		return fmt.Sprintf("(CASE WHEN jsonb_typeof(%[1]s -> 0) = 'number' THEN (%[1]s -> 0)::float8 END)", s.dates(k.Field))
	default:
		if col, ok := t.strCols[k.Field]; ok {
			return col + ` COLLATE "C"`
		}
		return fmt.Sprintf(`(CASE WHEN jsonb_typeof(%[1]s -> 0) = 'string' THEN %[1]s ->> 0 END) COLLATE "C"`, s.values(k.Field))
	}
}

// orderBy: the sort keys (missing values last), then relevance, then _id,
// so that pages never overlap.
func (s *stmt) orderBy(p *search.Plan, defaultKey string) string {
	if p.Keyset {
		return "d.id"
	}
	var keys []string
	for _, k := range p.Sort {
		dir := "DESC NULLS LAST"
		if k.Asc {
			dir = "ASC NULLS LAST"
		} else if _, ok := s.c.t.strCols[k.Field]; ok && k.Kind != search.KindNumber && k.Kind != search.KindDate {
			// The string columns are NOT NULL: NULLS FIRST orders alike and
			// lets the ascending index be read backwards.
			dir = "DESC NULLS FIRST"
		}
		keys = append(keys, fmt.Sprintf("%s %s", s.sortExpr(k), dir))
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
	var src string
	if kind == search.KindDate {
		src = s.dates(field)
	} else {
		src = s.values(field)
	}
	return fmt.Sprintf("(SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN (v)::float8 END AS x FROM (SELECT DISTINCT v FROM jsonb_array_elements(coalesce(%s, '[]')) v) v) e", src)
}

// valueSource yields k, the values of a field as text (terms, cardinality).
func (s *stmt) valueSource(field string) string {
	if col, ok := s.c.t.strCols[field]; ok {
		return fmt.Sprintf("(SELECT %[1]s AS k WHERE %[1]s <> '') e", col)
	}
	// Each distinct value once per document, as the flat map holds them.
	return fmt.Sprintf("(SELECT v #>> '{}' AS k FROM (SELECT DISTINCT v FROM jsonb_array_elements(coalesce(%s, '[]')) v WHERE jsonb_typeof(v) IN ('string', 'number', 'boolean')) v) e", s.values(field))
}
