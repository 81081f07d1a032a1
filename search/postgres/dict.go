package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/metaharvest/metaharvest/search"
)

// The two dictionaries (search_visibility, search_paths) give small integer
// ids to values that repeat on every document: the pair of group lists, and
// leaf paths. Rows are only ever added, so ids are cached without expiry.

// maxCachedPaths bounds the path cache.
const maxCachedPaths = 100_000

// visKey is the cache key of a pair of group lists.
func visKey(lg, cg []string) string {
	b, _ := json.Marshal([2][]string{nonNil(lg), nonNil(cg)})
	return string(b)
}

// visClasses returns the visibility class of each pair of group lists (by
// visKey), adding the classes not yet known.
func (e *Engine) visClasses(ctx context.Context, ps []*search.Prepared) (map[string]int32, error) {
	pairs := make([][2][]string, len(ps))
	for i, p := range ps {
		pairs[i] = [2][]string{p.LocationGroups, p.ContainerGroups}
	}
	return e.visClassesOf(ctx, pairs)
}

// visClassesOf returns the visibility class of each pair of group lists
// (location's, container's), by visKey, adding the classes not yet known.
func (e *Engine) visClassesOf(ctx context.Context, pairs [][2][]string) (map[string]int32, error) {
	out := make(map[string]int32, 4)
	var missing []string
	e.dictMu.Lock()
	for _, p := range pairs {
		k := visKey(p[0], p[1])
		if id, ok := e.visCache[k]; ok {
			out[k] = id
		} else if _, seen := out[k]; !seen {
			out[k] = 0
			missing = append(missing, k)
		}
	}
	e.dictMu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	// A stable order keeps two writers adding the same classes from
	// deadlocking on the unique index.
	sort.Strings(missing)
	ls, cs := make([]string, len(missing)), make([]string, len(missing))
	for i, k := range missing {
		var pair [2][]string
		_ = json.Unmarshal([]byte(k), &pair)
		l, _ := json.Marshal(nonNil(pair[0]))
		c, _ := json.Marshal(nonNil(pair[1]))
		ls[i], cs[i] = string(l), string(c)
	}
	const lists = `ARRAY(SELECT jsonb_array_elements_text(u.l::jsonb)) AS lg, ARRAY(SELECT jsonb_array_elements_text(u.c::jsonb)) AS cg`
	if _, err := e.db.ExecContext(ctx, `
INSERT INTO search_visibility (location_groups, container_groups)
SELECT lg, cg FROM (SELECT `+lists+` FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(l, c, o) ORDER BY u.o) s
ON CONFLICT (location_groups, container_groups) DO NOTHING`, ls, cs); err != nil {
		return nil, wrapErr(fmt.Errorf("record visibility classes: %w", err))
	}
	rows, err := e.db.QueryContext(ctx, `
SELECT u.k, v.id
FROM (SELECT u.k, `+lists+` FROM unnest($1::text[], $2::text[], $3::text[]) AS u(l, c, k)) u
JOIN search_visibility v ON v.location_groups = u.lg AND v.container_groups = u.cg`, ls, cs, missing)
	if err != nil {
		return nil, wrapErr(fmt.Errorf("read visibility classes: %w", err))
	}
	defer rows.Close()
	e.dictMu.Lock()
	defer e.dictMu.Unlock()
	for rows.Next() {
		var k string
		var id int32
		if err := rows.Scan(&k, &id); err != nil {
			return nil, wrapErr(fmt.Errorf("read visibility classes: %w", err))
		}
		out[k] = id
		e.visCache[k] = id
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr(fmt.Errorf("read visibility classes: %w", err))
	}
	for _, k := range missing {
		if out[k] == 0 {
			return nil, fmt.Errorf("visibility class %s was not recorded", k)
		}
	}
	return out, nil
}

// pathIDs returns the ids of paths; create adds the paths not yet known,
// else unknown paths (which no document has) are left out of the result.
func (e *Engine) pathIDs(ctx context.Context, paths []string, create bool) (map[string]int32, error) {
	out := make(map[string]int32, len(paths))
	var missing []string
	e.dictMu.Lock()
	for _, p := range paths {
		if id, ok := e.pathCache[p]; ok {
			out[p] = id
		} else if _, seen := out[p]; !seen {
			out[p] = 0
			missing = append(missing, p)
		}
	}
	e.dictMu.Unlock()
	for _, p := range missing {
		delete(out, p)
	}
	if len(missing) == 0 {
		return out, nil
	}
	sort.Strings(missing)
	if create {
		if _, err := e.db.ExecContext(ctx, `
INSERT INTO search_paths (path) SELECT p FROM unnest($1::text[]) WITH ORDINALITY AS u(p, o) ORDER BY o
ON CONFLICT (path) DO NOTHING`, missing); err != nil {
			return nil, wrapErr(fmt.Errorf("record paths: %w", err))
		}
	}
	rows, err := e.query(ctx, `SELECT path, id FROM search_paths WHERE path = ANY($1::text[])`, []any{missing})
	if err != nil {
		return nil, wrapErr(fmt.Errorf("read paths: %w", err))
	}
	defer rows.Close()
	e.dictMu.Lock()
	defer e.dictMu.Unlock()
	if len(e.pathCache) > maxCachedPaths {
		// Documents with ever new keys (copied user data) must not grow
		// the process without bound: start the cache again.
		e.pathCache = map[string]int32{}
	}
	for rows.Next() {
		var p string
		var id int32
		if err := rows.Scan(&p, &id); err != nil {
			return nil, wrapErr(fmt.Errorf("read paths: %w", err))
		}
		out[p] = id
		e.pathCache[p] = id
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr(fmt.Errorf("read paths: %w", err))
	}
	if create && len(out) != len(paths) {
		for _, p := range missing {
			if _, ok := out[p]; !ok {
				return nil, fmt.Errorf("path %q was not recorded", p)
			}
		}
	}
	return out, nil
}

// visibleClasses returns the visibility classes a user may see. It is read
// for every search: a class added a moment ago must be seen at once.
func (e *Engine) visibleClasses(ctx context.Context, vis search.Visibility) ([]int32, error) {
	rows, err := e.query(ctx, `
SELECT id FROM search_visibility
WHERE public OR ((cardinality(location_groups) = 0 OR location_groups && $1::text[])
             AND (cardinality(container_groups) = 0 OR container_groups && $1::text[]))
ORDER BY id`, []any{nonNil(vis.GroupIDs)})
	if err != nil {
		return nil, wrapErr(fmt.Errorf("read visibility classes: %w", err))
	}
	defer rows.Close()
	ids := []int32{}
	for rows.Next() {
		var id int32
		if err := rows.Scan(&id); err != nil {
			return nil, wrapErr(fmt.Errorf("read visibility classes: %w", err))
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr(fmt.Errorf("read visibility classes: %w", err))
	}
	return ids, nil
}
