package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
)

func init() {
	search.Register("postgres", func(cfg search.Config) (search.Engine, error) {
		return New(cfg.DB)
	})
}

// catalogueTTL is how long a process trusts its copy of the field catalogue.
// Writers in other processes add fields; a request naming a field this copy
// does not know reloads it at once, so the TTL only bounds how long a stale
// kind can be used.
const catalogueTTL = 10 * time.Second

// DefaultExactTotalLimit is how many matches are counted exactly; above it
// total_hits (which the reference calls approximate) is estimated from a
// sample of the table, so that broad queries do not scan every match to
// count them (Meilisearch stops counting at 1,000 by default, Elasticsearch
// at 10,000).
const DefaultExactTotalLimit = 1_000

// sampleRows is about how many rows a total estimate reads.
const sampleRows = 8_000

// Engine is the Postgres search backend.
type Engine struct {
	db *sql.DB

	// exactTotalLimit: see DefaultExactTotalLimit; sampleRows: about how
	// many rows an estimate reads.
	exactTotalLimit int
	sampleRows      float64

	mu   sync.Mutex
	cats map[search.Scope]cachedCatalogue

	// dictMu guards the caches of the two dictionaries (search_visibility
	// and search_paths). Their rows never change nor go away, so a cached
	// id is right for ever.
	dictMu    sync.Mutex
	visCache  map[string]int32
	pathCache map[string]int32

	// maintainMu guards what Maintain remembers: the count of document
	// writes it last saw and when it read it, when it last merged, and
	// when this process last wrote documents (IndexTx).
	maintainMu     sync.Mutex
	maintainWrites int64
	writesRead     time.Time
	maintained     time.Time
	lastWrite      time.Time

	// vectors: whether writes make body vectors in Go (see bodyVectors).
	vectors atomic.Int32
}

type cachedCatalogue struct {
	cat    *search.Catalogue
	loaded time.Time
}

var (
	_ search.Engine     = (*Engine)(nil)
	_ search.TxIndexer  = (*Engine)(nil)
	_ search.Maintainer = (*Engine)(nil)

	_ search.VisibilityRefresher = (*Engine)(nil)
)

// New returns the engine over a migrated database (migration 00003_search).
func New(db *gorm.DB) (*Engine, error) {
	if db == nil {
		return nil, errors.New("postgres search: no database")
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("postgres search: %w", err)
	}
	return &Engine{db: sqlDB, cats: map[search.Scope]cachedCatalogue{}, exactTotalLimit: DefaultExactTotalLimit, sampleRows: sampleRows,
		visCache: map[string]int32{}, pathCache: map[string]int32{}}, nil
}

// SetExactTotalLimit changes how many matches are counted exactly (see
// DefaultExactTotalLimit); n <= 0 counts every match.
func (e *Engine) SetExactTotalLimit(n int) { e.exactTotalLimit = n }

// Searches run their statements with pgx's exec mode: an unnamed statement
// planned with the actual parameters every time. Their text repeats across
// requests while the selectivity of the values does not, and a cached
// generic plan (what PostgreSQL switches to after five executions of a
// prepared statement) cannot see that "video" is a third of the table and
// "zeppelin" a handful of rows.
func (e *Engine) query(ctx context.Context, stmt string, args []any) (*sql.Rows, error) {
	return e.db.QueryContext(ctx, stmt, append([]any{pgx.QueryExecModeExec}, args...)...)
}

func (e *Engine) queryRow(ctx context.Context, stmt string, args []any) *sql.Row {
	return e.db.QueryRowContext(ctx, stmt, append([]any{pgx.QueryExecModeExec}, args...)...)
}

// Name is "postgres".
func (e *Engine) Name() string { return "postgres" }

// Ping checks the database.
func (e *Engine) Ping(ctx context.Context) error {
	if err := e.db.PingContext(ctx); err != nil {
		return wrapErr(err)
	}
	return nil
}

// Reset empties the index and the field catalogue. The dictionaries of
// visibility classes and paths stay: other processes may hold their ids.
func (e *Engine) Reset(ctx context.Context) error {
	if _, err := e.db.ExecContext(ctx, `TRUNCATE search_documents, search_numbers, search_segments, search_fields`); err != nil {
		return wrapErr(fmt.Errorf("reset search index: %w", err))
	}
	e.mu.Lock()
	e.cats = map[search.Scope]cachedCatalogue{}
	e.mu.Unlock()
	return nil
}

// catalogue returns the current catalogue of a scope; reload forces a read
// from the database.
func (e *Engine) catalogue(ctx context.Context, scope search.Scope, reload bool) (*search.Catalogue, bool, error) {
	e.mu.Lock()
	c, ok := e.cats[scope]
	e.mu.Unlock()
	if ok && !reload && time.Since(c.loaded) < catalogueTTL {
		return c.cat, false, nil
	}
	cat := search.NewCatalogue(scope)
	rows, err := e.db.QueryContext(ctx, `SELECT path, kinds FROM search_fields WHERE scope = $1`, string(scope))
	if err != nil {
		return nil, false, wrapErr(fmt.Errorf("load search fields: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var path string
		var kinds int16
		if err := rows.Scan(&path, &kinds); err != nil {
			return nil, false, wrapErr(fmt.Errorf("load search fields: %w", err))
		}
		cat.Add(path, search.Kind(kinds))
	}
	if err := rows.Err(); err != nil {
		return nil, false, wrapErr(fmt.Errorf("load search fields: %w", err))
	}
	if scope == search.ScopeItems {
		if err := search.AddCustomFields(ctx, e.db, cat); err != nil {
			return nil, false, wrapErr(err)
		}
	}
	e.mu.Lock()
	e.cats[scope] = cachedCatalogue{cat: cat, loaded: time.Now()}
	e.mu.Unlock()
	return cat, true, nil
}

// learn records the paths of prepared documents in the catalogue (database
// first, then this process's copy).
func (e *Engine) learn(ctx context.Context, scope search.Scope, docs []*search.Prepared) error {
	cur, _, err := e.catalogue(ctx, scope, false)
	if err != nil {
		return err
	}
	next := cur.Clone()
	added := map[string]search.Kind{}
	for _, p := range docs {
		for path, k := range next.Merge(p) {
			added[path] = k
		}
	}
	if len(added) == 0 {
		return nil
	}
	paths := make([]string, 0, len(added))
	kinds := make([]int16, 0, len(added))
	for p, k := range added {
		paths = append(paths, p)
		kinds = append(kinds, int16(k))
	}
	_, err = e.db.ExecContext(ctx, `
INSERT INTO search_fields (scope, path, kinds)
SELECT $1, p, k FROM unnest($2::text[], $3::smallint[]) AS u(p, k)
ON CONFLICT (scope, path) DO UPDATE SET kinds = search_fields.kinds | excluded.kinds
WHERE search_fields.kinds | excluded.kinds <> search_fields.kinds`, string(scope), paths, kinds)
	if err != nil {
		return wrapErr(fmt.Errorf("record search fields: %w", err))
	}
	e.mu.Lock()
	if c, ok := e.cats[scope]; ok && c.cat == cur {
		e.cats[scope] = cachedCatalogue{cat: next, loaded: c.loaded}
	} else {
		delete(e.cats, scope) // someone reloaded meanwhile: read again next time
	}
	e.mu.Unlock()
	return nil
}

// wrapErr turns connection failures into search.Unavailable (503); errors
// Postgres itself reports (SQLSTATE) are bugs and stay internal.
func wrapErr(err error) error {
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &pgErr) {
		return err
	}
	return search.Unavailable(err)
}

// maintainLock is the advisory lock key of Maintain: one process at a time
// does it, the others skip their turn.
const maintainLock = 0x6d68_7365_6172_6368 // "mhsearch"

// Maintain merges the pending lists of the GIN indexes of search_documents
// into the indexes. Writers append new entries to those lists (cheap, and
// outside the index's pages, which many writers would otherwise wait
// for), and every search reads them whole. They stay short for searches
// while harvests write at the speed of appends: merged
//   - settleAfter after this process's last write (a harvest's last batch
//     is merged at once, not seconds later: searches straight after a
//     harvest read no long list);
//   - when the server counts no document written since the last look
//     (writes of other processes; looked at every maintainLook);
//   - at least every maintainEvery while documents are being written.
//
// The indexers call it often (search.DefaultMaintainInterval); it decides.
func (e *Engine) Maintain(ctx context.Context) error {
	started := time.Now()
	e.maintainMu.Lock()
	settled := e.lastWrite.After(e.maintained) && started.Sub(e.lastWrite) >= settleAfter
	look := started.Sub(e.writesRead) >= maintainLook
	e.maintainMu.Unlock()
	if !settled && !look {
		return nil
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return wrapErr(err)
	}
	defer conn.Close()
	if !settled {
		var writes int64
		if err := conn.QueryRowContext(ctx, `SELECT coalesce(n_tup_ins + n_tup_upd, 0) FROM pg_stat_user_tables
		WHERE relid = 'search_documents'::regclass`).Scan(&writes); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return wrapErr(err)
		}
		e.maintainMu.Lock()
		quiet := writes == e.maintainWrites
		due := started.Sub(e.maintained) >= maintainEvery
		e.maintainWrites = writes
		e.writesRead = started
		e.maintainMu.Unlock()
		if !quiet && !due {
			return nil
		}
	}
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, int64(maintainLock)).Scan(&got); err != nil || !got {
		return wrapErr(err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(maintainLock))
	var merged int64
	err = conn.QueryRowContext(ctx, `
SELECT coalesce(sum(gin_clean_pending_list(i.indexrelid::regclass)), 0)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'search_documents'::regclass AND a.amname = 'gin'`).Scan(&merged)
	if err != nil {
		return wrapErr(fmt.Errorf("merge pending index entries: %w", err))
	}
	if err := foldTermCounts(ctx, conn); err != nil {
		return err
	}
	e.maintainMu.Lock()
	e.maintained = started // a write during the merge is merged next time
	e.maintainMu.Unlock()
	return nil
}

// noteWrite tells Maintain that this process wrote documents now.
func (e *Engine) noteWrite() {
	e.maintainMu.Lock()
	e.lastWrite = time.Now()
	e.maintainMu.Unlock()
}

const (
	// maintainEvery is the longest Maintain lets pending index entries
	// wait while documents are being written.
	maintainEvery = 5 * time.Second
	// maintainLook is how often Maintain reads the server's count of
	// document writes (its statistics, which backends report about once
	// a second: looked at more often, writes would seem to have stopped).
	maintainLook = time.Second
	// settleAfter is how long after this process's last write Maintain
	// merges: longer than the gaps between a harvest's batches, so that a
	// running harvest's entries are still merged in bulk.
	settleAfter = 300 * time.Millisecond
)
