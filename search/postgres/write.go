package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// writeBatch bounds the documents of one INSERT statement.
const writeBatch = 250

// columns of one upsert statement, one array per column.
type docColumns struct {
	id, nameText, body, typ, name, size, lastModified []string
	// bodyVector: the body's tsvector literal, made in Go (body is then
	// ""), when vectors allows it and bodyVector takes the body.
	bodyVector []string
	vectors    bool
	// lg, cg: the visibility lists as JSON (segments; items have vis).
	lg, cg []string
	// doc and flat: the document and its flat map (segments); extra and
	// dates: the document but what its columns give back, and its nested
	// dates ("" for none; items).
	doc, flat, extra, dates []string
	itemID                  []string
	time                    []float64
	// str: base string fields with a column of their own, by field.
	str map[string][]string
	// vis: the visibility class, keys: the ids of the document's leaf paths
	// (an int[] literal), of item documents.
	vis  []int32
	keys []string
	// The rows of search_numbers.
	numID   []string
	numPath []int32
	numDate []bool
	numX    []float64
}

// itemStrColumns are the string fields of item documents with a column of
// their own in search_documents.
var itemStrColumns = []string{search.FieldExtension, search.FieldMimeType, search.FieldLocationID,
	search.FieldLocationName, search.FieldContainerID, search.FieldContainerName}

// strColumnFields are the string fields of item documents held by a column:
// type, name and itemStrColumns.
var strColumnFields = func() map[string]bool {
	m := map[string]bool{search.FieldType: true, search.FieldName: true}
	for _, f := range itemStrColumns {
		m[f] = true
	}
	return m
}()

// addItem adds an item document with its visibility class and the path ids
// of its leaves (keys, and search_numbers for nested numbers and dates).
func (c *docColumns) addItem(p *search.Prepared, vis int32, paths map[string]int32) error {
	c.addBase(p)
	c.vis = append(c.vis, vis)
	ids := make([]int, 0, len(p.Flat))
	for path, vals := range p.Flat {
		pid, ok := paths[path]
		if !ok {
			return fmt.Errorf("index document %s: path %q has no id", p.ID, path)
		}
		ids = append(ids, int(pid))
		if path == search.FieldSize || itemsTable.aliases[path] != "" {
			continue // a column
		}
		for _, v := range vals {
			if x, ok := v.(float64); ok {
				c.numID, c.numPath, c.numDate, c.numX = append(c.numID, p.ID), append(c.numPath, pid), append(c.numDate, false), append(c.numX, x)
			}
		}
	}
	var nested map[string][]float64 // made for the first nested date
	for path, secs := range p.Dates {
		pid, ok := paths[path]
		if !ok {
			return fmt.Errorf("index document %s: path %q has no id", p.ID, path)
		}
		if path == search.FieldLastModified {
			continue // a column
		}
		if nested == nil {
			nested = map[string][]float64{}
		}
		nested[path] = secs
		for _, x := range secs {
			c.numID, c.numPath, c.numDate, c.numX = append(c.numID, p.ID), append(c.numPath, pid), append(c.numDate, true), append(c.numX, x)
		}
	}
	sort.Ints(ids)
	var b strings.Builder
	b.WriteByte('{')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(id))
	}
	b.WriteByte('}')
	c.keys = append(c.keys, b.String())

	dates := ""
	if len(nested) > 0 {
		raw, err := json.Marshal(nested)
		if err != nil {
			return fmt.Errorf("encode document %s: %w", p.ID, err)
		}
		dates = string(raw)
	}
	c.dates = append(c.dates, dates)
	extra, err := extraOf(p.Public, c.size[len(c.size)-1], c.lastModified[len(c.lastModified)-1])
	if err != nil {
		return fmt.Errorf("encode document %s: %w", p.ID, err)
	}
	c.extra = append(c.extra, extra)
	return nil
}

// extraOf encodes what of an item document its columns do not give back
// exactly ("" when nothing): everything but _id and the base fields whose
// value the column holds as it was (fetchDocs puts them back). It encodes
// the document's entries in place, without a copy of the map.
func extraOf(public map[string]any, size, lastModified string) (string, error) {
	b := make([]byte, 0, 512)
	b = append(b, '{')
	n := 0
	for k, v := range public {
		if inColumns(k, v, size, lastModified) {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		var err error
		if b, err = search.AppendJSON(b, k); err != nil {
			return "", err
		}
		b = append(b, ':')
		if b, err = search.AppendJSON(b, v); err != nil {
			return "", err
		}
	}
	if n == 0 {
		return "", nil
	}
	return string(append(b, '}')), nil
}

// inColumns: the document's field k, of value v, is _id or is held as it
// was by a column of search_documents (size and lastModified are what the
// size and last_modified columns were given).
func inColumns(k string, v any, size, lastModified string) bool {
	if strColumnFields[k] {
		s, ok := v.(string)
		return ok && s != ""
	}
	switch k {
	case search.FieldID:
		return true
	case search.FieldSize:
		n, ok := v.(json.Number)
		return ok && string(n) == size
	case search.FieldLastModified:
		s, ok := v.(string)
		return ok && s == lastModified
	}
	return false
}

// addSegment adds a segment: its document and flat map go whole.
func (c *docColumns) addSegment(p *search.Prepared) error {
	doc, err := search.AppendJSON(nil, p.Public)
	if err != nil {
		return fmt.Errorf("encode document %s: %w", p.ID, err)
	}
	flat, err := json.Marshal(p.Flat)
	if err != nil {
		return fmt.Errorf("encode document %s: %w", p.ID, err)
	}
	dates, err := json.Marshal(p.Dates)
	if err != nil {
		return fmt.Errorf("encode document %s: %w", p.ID, err)
	}
	lg, _ := json.Marshal(nonNil(p.LocationGroups))
	cg, _ := json.Marshal(nonNil(p.ContainerGroups))
	c.addBase(p)
	c.lg = append(c.lg, string(lg))
	c.cg = append(c.cg, string(cg))
	c.doc = append(c.doc, string(doc))
	c.flat = append(c.flat, string(flat))
	c.dates = append(c.dates, string(dates))
	return nil
}

// addBase adds the columns every table has.
func (c *docColumns) addBase(p *search.Prepared) {
	c.id = append(c.id, p.ID)
	// The words' text is made here, where it is cheaper than in SQL (see
	// tsvExpr).
	c.nameText = append(c.nameText, p.NameText+"\n"+splitWords(p.NameText))
	body, vector, ok := "", "", false
	if c.vectors {
		vector, ok = bodyVector(p.BodyText)
	}
	if !ok {
		body = splitWords(p.BodyText)
	}
	c.body = append(c.body, body)
	c.bodyVector = append(c.bodyVector, vector)

	typ, _ := p.Public[search.FieldType].(string)
	if typ == "" {
		typ = models.TypeOther
	}
	c.typ = append(c.typ, typ)
	name, _ := p.Public[search.FieldName].(string)
	c.name = append(c.name, name)
	if c.str == nil {
		c.str = map[string][]string{}
	}
	for _, f := range itemStrColumns {
		v, _ := p.Public[f].(string)
		c.str[f] = append(c.str[f], v)
	}
	size := ""
	if n, ok := p.Public[search.FieldSize].(json.Number); ok {
		if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 9e18 {
			size = fmt.Sprintf("%d", int64(f))
		}
	}
	c.size = append(c.size, size)
	lm := ""
	if s, ok := p.Public[search.FieldLastModified].(string); ok {
		if t, ok := search.ParseDateValue(s); ok {
			lm = t.Round(time.Microsecond).Format(time.RFC3339Nano) // what timestamptz keeps
		}
	}
	c.lastModified = append(c.lastModified, lm)
	itemID, _ := p.Public["item_id"].(string)
	c.itemID = append(c.itemID, itemID)
	tm := 0.0
	if n, ok := p.Public["time"].(json.Number); ok {
		tm, _ = n.Float64()
	}
	c.time = append(c.time, tm)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// dedupe keeps the last of documents sharing an id (one statement may not
// touch a row twice).
func dedupe(ps []*search.Prepared) []*search.Prepared {
	last := map[string]int{}
	for i, p := range ps {
		last[p.ID] = i
	}
	if len(last) == len(ps) {
		return ps
	}
	out := make([]*search.Prepared, 0, len(last))
	for i, p := range ps {
		if last[p.ID] == i {
			out = append(out, p)
		}
	}
	return out
}

// tsvExpr is a document's words: its name weighted A, as written and split
// (name_text holds both, as search_tsv_text makes them), and the rest
// split (body): at every non-alphanumeric run (tsQuery matches either),
// so that paths, URLs and types add their words, not one long unique
// lexeme each. The rest is body_vector, its tsvector made in Go, when
// body is empty (see bodyVector).
const tsvExpr = `setweight(to_tsvector('` + wordsConfig + `', u.name_text), 'A') ||
       CASE WHEN u.body = '' THEN u.body_vector::tsvector ELSE to_tsvector('` + wordsConfig + `', u.body) END`

// splitWords turns every run of characters that are neither letters nor
// digits into one space, as search_tsv_text's regexp does in SQL.
func splitWords(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if gap {
				b.WriteByte(' ')
				gap = false
			}
			b.WriteRune(r)
		} else if b.Len() > 0 {
			gap = true
		}
	}
	return b.String()
}

// Upsert adds or replaces documents and refreshes the visibility lists of
// their items' segments.
func (e *Engine) Upsert(ctx context.Context, docs []search.Document) error {
	batches, err := e.prepareItems(ctx, docs)
	if err != nil || len(batches) == 0 {
		return err
	}
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return wrapErr(fmt.Errorf("index documents: %w", err))
	}
	defer tx.Rollback()
	if err := e.writeItems(ctx, tx, batches, true); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return wrapErr(fmt.Errorf("index documents: %w", err))
	}
	return nil
}

// IndexTx writes documents, segments and removals with conn, the caller's
// transaction (search.TxIndexer): the items' segments are replaced by segs.
func (e *Engine) IndexTx(ctx context.Context, conn search.Conn, docs []search.Document, segs []search.Segment, gone []string) error {
	batches, err := e.prepareItems(ctx, docs)
	if err != nil {
		return err
	}
	segBatches, err := e.prepareSegments(ctx, segs)
	if err != nil {
		return err
	}
	if err := e.writeItems(ctx, conn, batches, false); err != nil {
		return err
	}
	if err := deleteDocuments(ctx, conn, gone); err != nil {
		return err
	}
	items := append(slices.Clone(gone), make([]string, 0, len(docs))...)
	for _, d := range docs {
		items = append(items, d.ID())
	}
	if err := deleteSegments(ctx, conn, items); err != nil {
		return err
	}
	return writeSegments(ctx, conn, segBatches)
}

// prepareItems does what writing documents needs first: the documents
// prepared, their fields learnt and their visibility classes and path ids
// recorded (on the engine's own connections, in transactions of their own:
// these dictionaries only grow, and a writer's transaction must not hold
// their locks), and the statements' columns, batch by batch.
func (e *Engine) prepareItems(ctx context.Context, docs []search.Document) ([]*docColumns, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	prepared := make([]*search.Prepared, 0, len(docs))
	for _, d := range docs {
		p, err := search.PrepareItem(d)
		if err != nil {
			return nil, fmt.Errorf("index document %q: %w", d.ID(), err)
		}
		prepared = append(prepared, p)
	}
	prepared = dedupe(prepared)
	if err := e.learn(ctx, search.ScopeItems, prepared); err != nil {
		return nil, err
	}
	classes, err := e.visClasses(ctx, prepared)
	if err != nil {
		return nil, err
	}
	var paths []string
	seen := map[string]bool{}
	for _, p := range prepared {
		for path := range p.Flat {
			if !seen[path] {
				seen[path] = true
				paths = append(paths, path)
			}
		}
	}
	ids, err := e.pathIDs(ctx, paths, true)
	if err != nil {
		return nil, err
	}
	vectors, err := e.bodyVectors(ctx)
	if err != nil {
		return nil, err
	}
	var batches []*docColumns
	for start := 0; start < len(prepared); start += writeBatch {
		batch := prepared[start:min(start+writeBatch, len(prepared))]
		c := &docColumns{vectors: vectors}
		for _, p := range batch {
			if err := c.addItem(p, classes[visKey(p.LocationGroups, p.ContainerGroups)], ids); err != nil {
				return nil, err
			}
		}
		batches = append(batches, c)
	}
	return batches, nil
}

// writeItems writes prepared documents with conn; refreshSegments also
// brings the visibility lists of the items' segments in line (IndexTx
// writes the segments anew instead).
func (e *Engine) writeItems(ctx context.Context, conn search.Conn, batches []*docColumns, refreshSegments bool) error {
	for _, c := range batches {
		if err := upsertDocuments(ctx, conn, c, refreshSegments); err != nil {
			return err
		}
	}
	if len(batches) > 0 {
		e.noteWrite()
	}
	return nil
}

// documentsSQL writes item documents, one column an argument
// (docColumns), with %s the conflict clause: insertDocumentsSQL expects
// them new and fails on one that is there, upsertDocumentsSQL replaces it
// (store.InsertExpectingNew).
const documentsSQL = `
INSERT INTO search_documents AS d (vis, size, last_modified, id, type, name, extension, mime_type,
    location_id, location_name, container_id, container_name, keys, tsv, extra, dates)
SELECT u.vis, NULLIF(u.size, '')::bigint, NULLIF(u.lm, '')::timestamptz, u.id, u.type, u.name, u.ext, u.mime,
       u.loc, u.locname, u.cont, u.contname, u.keys::integer[], ` + tsvExpr + `, NULLIF(u.extra, '')::jsonb, NULLIF(u.dates, '')::jsonb
FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
            $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[])
     AS u(id, vis, type, name, size, lm, keys, name_text, body, ext, mime, loc, locname, cont, contname, extra, dates, body_vector)
%s`

var insertDocumentsSQL, upsertDocumentsSQL = fmt.Sprintf(documentsSQL, ""), fmt.Sprintf(documentsSQL, `
ON CONFLICT (id) DO UPDATE SET vis = excluded.vis, size = excluded.size, last_modified = excluded.last_modified,
    type = excluded.type, name = excluded.name, extension = excluded.extension, mime_type = excluded.mime_type,
    location_id = excluded.location_id, location_name = excluded.location_name, container_id = excluded.container_id,
    container_name = excluded.container_name, keys = excluded.keys, tsv = excluded.tsv, extra = excluded.extra,
    dates = excluded.dates`)

func upsertDocuments(ctx context.Context, conn search.Conn, c *docColumns, refreshSegments bool) error {
	args := []any{c.id, c.vis, c.typ, c.name, c.size, c.lastModified, c.keys, c.nameText, c.body,
		c.str[search.FieldExtension], c.str[search.FieldMimeType], c.str[search.FieldLocationID],
		c.str[search.FieldLocationName], c.str[search.FieldContainerID], c.str[search.FieldContainerName], c.extra, c.dates,
		c.bodyVector}
	write := func(query string) func() error {
		return func() error {
			_, err := conn.ExecContext(ctx, query, args...)
			return err
		}
	}
	// A harvest's documents are new, those of items harvested again are
	// not: the insert then fails on its first row, and the upsert runs.
	err := store.InsertExpectingNew(ctx, conn, write(insertDocumentsSQL), write(upsertDocumentsSQL))
	if err != nil {
		return wrapErr(fmt.Errorf("index documents: %w", err))
	}
	_, err = conn.ExecContext(ctx, `
WITH old AS (DELETE FROM search_numbers WHERE id = ANY($1::text[]))
INSERT INTO search_numbers (id, path, date, x)
SELECT * FROM unnest($2::text[], $3::integer[], $4::boolean[], $5::float8[])`, c.id, c.numID, c.numPath, c.numDate, c.numX)
	if err != nil {
		return wrapErr(fmt.Errorf("index documents: %w", err))
	}
	if !refreshSegments {
		return nil
	}
	_, err = conn.ExecContext(ctx, `
UPDATE search_segments s
SET location_groups = v.location_groups, container_groups = v.container_groups
FROM search_documents d JOIN search_visibility v ON v.id = d.vis
WHERE d.id = s.item_id AND s.item_id = ANY($1::text[])
  AND (s.location_groups <> v.location_groups OR s.container_groups <> v.container_groups)`, c.id)
	if err != nil {
		return wrapErr(fmt.Errorf("refresh segment visibility: %w", err))
	}
	return nil
}

// Delete removes documents.
func (e *Engine) Delete(ctx context.Context, ids []string) error {
	return deleteDocuments(ctx, e.db, ids)
}

func deleteDocuments(ctx context.Context, conn search.Conn, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := conn.ExecContext(ctx, `
WITH n AS (DELETE FROM search_numbers WHERE id = ANY($1::text[]))
DELETE FROM search_documents WHERE id = ANY($1::text[])`, ids)
	if err != nil {
		return wrapErr(fmt.Errorf("delete documents: %w", err))
	}
	return nil
}

// UpsertSegments adds or replaces segments. When the item's document is
// indexed its visibility lists win over the segment's own.
func (e *Engine) UpsertSegments(ctx context.Context, segs []search.Segment) error {
	batches, err := e.prepareSegments(ctx, segs)
	if err != nil {
		return err
	}
	return writeSegments(ctx, e.db, batches)
}

// prepareSegments prepares segments and learns their fields.
func (e *Engine) prepareSegments(ctx context.Context, segs []search.Segment) ([]*docColumns, error) {
	if len(segs) == 0 {
		return nil, nil
	}
	prepared := make([]*search.Prepared, 0, len(segs))
	for _, s := range segs {
		d, err := s.Document()
		if err != nil {
			return nil, err
		}
		p, err := search.Prepare(d)
		if err != nil {
			return nil, fmt.Errorf("index segment %q: %w", s.ID, err)
		}
		prepared = append(prepared, p)
	}
	prepared = dedupe(prepared)
	if err := e.learn(ctx, search.ScopeSegments, prepared); err != nil {
		return nil, err
	}
	vectors, err := e.bodyVectors(ctx)
	if err != nil {
		return nil, err
	}
	var batches []*docColumns
	for start := 0; start < len(prepared); start += writeBatch {
		c := &docColumns{vectors: vectors}
		for _, p := range prepared[start:min(start+writeBatch, len(prepared))] {
			if err := c.addSegment(p); err != nil {
				return nil, err
			}
		}
		batches = append(batches, c)
	}
	return batches, nil
}

func writeSegments(ctx context.Context, conn search.Conn, batches []*docColumns) error {
	for _, c := range batches {
		_, err := conn.ExecContext(ctx, `
INSERT INTO search_segments AS s (id, item_id, time, doc, flat, dates, tsv, location_groups, container_groups, indexed_at)
SELECT u.id, u.item_id, u.time, u.doc::jsonb, u.flat::jsonb, u.dates::jsonb, `+tsvExpr+`,
       coalesce(v.location_groups, ARRAY(SELECT jsonb_array_elements_text(u.lg::jsonb))),
       coalesce(v.container_groups, ARRAY(SELECT jsonb_array_elements_text(u.cg::jsonb))), now()
FROM unnest($1::text[], $2::text[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
            $11::text[])
     AS u(id, item_id, time, doc, flat, dates, name_text, body, lg, cg, body_vector)
LEFT JOIN search_documents d ON d.id = u.item_id
LEFT JOIN search_visibility v ON v.id = d.vis
ON CONFLICT (id) DO UPDATE SET
    item_id = excluded.item_id, time = excluded.time, doc = excluded.doc, flat = excluded.flat,
    dates = excluded.dates, tsv = excluded.tsv, location_groups = excluded.location_groups,
    container_groups = excluded.container_groups, indexed_at = excluded.indexed_at`,
			c.id, c.itemID, c.time, c.doc, c.flat, c.dates, c.nameText, c.body, c.lg, c.cg, c.bodyVector)
		if err != nil {
			return wrapErr(fmt.Errorf("index segments: %w", err))
		}
	}
	return nil
}

// DeleteSegmentsOfItems removes the segments of items.
func (e *Engine) DeleteSegmentsOfItems(ctx context.Context, itemIDs []string) error {
	return deleteSegments(ctx, e.db, itemIDs)
}

func deleteSegments(ctx context.Context, conn search.Conn, itemIDs []string) error {
	if len(itemIDs) == 0 {
		return nil
	}
	if _, err := conn.ExecContext(ctx, `DELETE FROM search_segments WHERE item_id = ANY($1::text[])`, itemIDs); err != nil {
		return wrapErr(fmt.Errorf("delete segments: %w", err))
	}
	return nil
}

// RefreshVisibilityTx gives the documents and segments of the items of
// these containers the visibility of their location's and their own
// groups as conn's transaction sees them (search.GroupsChanged).
func (e *Engine) RefreshVisibilityTx(ctx context.Context, conn search.Conn, containerIDs []string) error {
	rows, err := conn.QueryContext(ctx, `
SELECT ct.id,
       ARRAY(SELECT g.group_id FROM location_groups g WHERE g.location_id = ct.location_id ORDER BY 1),
       ARRAY(SELECT g.group_id FROM container_groups g WHERE g.container_id = ct.id ORDER BY 1)
FROM containers ct WHERE ct.id = ANY($1::text[])`, containerIDs)
	if err != nil {
		return wrapErr(fmt.Errorf("groups of containers: %w", err))
	}
	var ids []string
	var pairs [][2][]string
	for rows.Next() {
		var id string
		var lg, cg models.Strings
		if err := rows.Scan(&id, &lg, &cg); err != nil {
			rows.Close()
			return wrapErr(fmt.Errorf("groups of containers: %w", err))
		}
		ids = append(ids, id)
		pairs = append(pairs, [2][]string{lg, cg})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return wrapErr(fmt.Errorf("groups of containers: %w", err))
	}
	if len(ids) == 0 {
		return nil
	}
	classes, err := e.visClassesOf(ctx, pairs)
	if err != nil {
		return err
	}
	vis := make([]int32, len(ids))
	lgs, cgs := make([]string, len(ids)), make([]string, len(ids))
	for i, p := range pairs {
		vis[i] = classes[visKey(p[0], p[1])]
		l, _ := json.Marshal(nonNil(p[0]))
		c, _ := json.Marshal(nonNil(p[1]))
		lgs[i], cgs[i] = string(l), string(c)
	}
	if _, err := conn.ExecContext(ctx, `
UPDATE search_documents d SET vis = x.vis
FROM unnest($1::text[], $2::integer[]) AS x(container_id, vis)
WHERE d.container_id = x.container_id AND d.vis <> x.vis`, ids, vis); err != nil {
		return wrapErr(fmt.Errorf("refresh visibility: %w", err))
	}
	if _, err := conn.ExecContext(ctx, `
UPDATE search_segments s
SET location_groups = ARRAY(SELECT jsonb_array_elements_text(x.lg::jsonb)),
    container_groups = ARRAY(SELECT jsonb_array_elements_text(x.cg::jsonb))
FROM items i JOIN unnest($1::text[], $2::text[], $3::text[]) AS x(container_id, lg, cg) ON x.container_id = i.container_id
WHERE s.item_id = i.id`, ids, lgs, cgs); err != nil {
		return wrapErr(fmt.Errorf("refresh segment visibility: %w", err))
	}
	return nil
}
