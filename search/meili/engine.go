package meili

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/meilisearch/meilisearch-go"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/search"
)

func init() {
	search.Register("meili", func(cfg search.Config) (search.Engine, error) {
		c := Config{URL: cfg.MeiliURL, APIKey: cfg.MeiliAPIKey, IndexPrefix: cfg.MeiliIndexPrefix, Logger: cfg.Logger, DB: cfg.DB}
		// Opened on first use (and retried), so a process started while
		// Meilisearch is down still starts and answers 503 for search.
		return search.Lazy("meili", func(ctx context.Context) (search.Engine, error) {
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			e, err := New(ctx, c)
			if err != nil {
				return nil, err
			}
			return e, nil
		}), nil
	})
}

// Config configures the Meilisearch engine.
type Config struct {
	// URL of the server (MEILI_URL) and its API key (MEILI_API_KEY, secret).
	URL, APIKey string
	// IndexPrefix prefixes the three index names (items, segments, fields);
	// default "metaharvest_".
	IndexPrefix string
	// MaxValuesPerFacet bounds the values of one facet distribution; avg,
	// sum, cardinality and histograms are exact up to that many distinct
	// values among the matches (default 100,000).
	MaxValuesPerFacet int64
	// MaxTotalHits bounds total_hits and how deep pages go (default 1,000,000).
	MaxTotalHits int64
	// Logger receives settings updates and failed tasks; default
	// slog.Default().
	Logger *slog.Logger
	// DB, when set, is where the items of a write Meilisearch accepted but
	// then failed are marked dirty again (search.MarkDirty), so that the
	// drain writes them again: writes do not wait for their tasks.
	DB *gorm.DB
}

// catalogueTTL: see the postgres backend; a request naming an unknown field
// reloads at once.
const catalogueTTL = 10 * time.Second

// taskPoll is how often a pending task is checked.
const taskPoll = 25 * time.Millisecond

// Engine is the Meilisearch search backend.
type Engine struct {
	client                 meilisearch.ServiceManager
	cfg                    Config
	log                    *slog.Logger
	items, segments, field string

	mu       sync.Mutex
	cats     map[search.Scope]cachedCatalogue
	settings map[search.Scope]*indexSettings

	writes   writes         // tasks sent and not yet seen done (write.go)
	backlog  backlogReading // the last Backlog (write.go)
	speed    speedReading   // the last IndexTime (write.go)
	segEmpty emptyReading   // the segments index last seen empty (write.go)
}

type cachedCatalogue struct {
	cat *search.Catalogue
	// seen are the leaves some document has had (declared ones too):
	// Meilisearch refuses to restrict a search to a field no document has.
	seen   map[string]bool
	loaded time.Time
}

var _ search.Engine = (*Engine)(nil)

// New connects, creates the indexes when missing and applies their settings.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.URL == "" {
		return nil, errors.New("meili search: no URL")
	}
	if cfg.IndexPrefix == "" {
		cfg.IndexPrefix = "metaharvest_"
	}
	if cfg.MaxValuesPerFacet <= 0 {
		cfg.MaxValuesPerFacet = 100_000
	}
	if cfg.MaxTotalHits <= 0 {
		cfg.MaxTotalHits = 1_000_000
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	opts := []meilisearch.Option{meilisearch.WithCustomClient(HTTPClient())}
	if cfg.APIKey != "" {
		opts = append(opts, meilisearch.WithAPIKey(cfg.APIKey))
	}
	e := &Engine{
		client:   meilisearch.New(cfg.URL, opts...),
		cfg:      cfg,
		log:      cfg.Logger,
		items:    cfg.IndexPrefix + "items",
		segments: cfg.IndexPrefix + "segments",
		field:    cfg.IndexPrefix + "fields",
		cats:     map[search.Scope]cachedCatalogue{},
		settings: map[search.Scope]*indexSettings{},
	}
	if err := e.ensure(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// Name is "meili".
func (e *Engine) Name() string { return "meili" }

// Ping asks the server for its health.
func (e *Engine) Ping(ctx context.Context) error {
	h, err := e.client.HealthWithContext(ctx)
	if err != nil {
		return wrapErr(err)
	}
	if h.Status != "available" {
		return search.Unavailable(fmt.Errorf("meilisearch status %q", h.Status))
	}
	return nil
}

// ensure creates the indexes that are missing and brings settings up to date.
func (e *Engine) ensure(ctx context.Context) error {
	for _, uid := range []string{e.items, e.segments, e.field} {
		_, err := e.client.GetIndexWithContext(ctx, uid)
		if err == nil {
			continue
		}
		if !isNotFound(err) {
			return wrapErr(fmt.Errorf("get index %s: %w", uid, err))
		}
		info, err := e.client.CreateIndexWithContext(ctx, &meilisearch.IndexConfig{Uid: uid, PrimaryKey: search.FieldID})
		if err != nil {
			return wrapErr(fmt.Errorf("create index %s: %w", uid, err))
		}
		if err := e.wait(ctx, info); err != nil {
			// Another process (or a write, which creates its index) made
			// it meanwhile.
			if _, gerr := e.client.GetIndexWithContext(ctx, uid); gerr == nil {
				continue
			}
			return fmt.Errorf("create index %s: %w", uid, err)
		}
	}
	for _, scope := range []search.Scope{search.ScopeItems, search.ScopeSegments} {
		if err := e.applySettings(ctx, scope); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) index(scope search.Scope) string {
	if scope == search.ScopeSegments {
		return e.segments
	}
	return e.items
}

// applySettings gives an index the settings of the declared catalogue
// (fields.go) unless it has them: the key of what it was given is kept in
// the fields index. It runs when the engine starts, never for a write.
func (e *Engine) applySettings(ctx context.Context, scope search.Scope) error {
	uid := e.index(scope)
	want := declaredSettings(scope, e.cfg.MaxValuesPerFacet, e.cfg.MaxTotalHits)
	key := want.key()
	marker := fieldDoc{ID: fieldID("settings", uid), Scope: "settings", Path: key}
	var have fieldDoc
	err := e.client.Index(e.field).GetDocumentWithContext(ctx, marker.ID, nil, &have)
	if err != nil && !isNotFound(err) {
		return wrapErr(fmt.Errorf("get settings of %s: %w", uid, err))
	}
	if err != nil || have.Path != key {
		info, err := e.client.Index(uid).UpdateSettingsWithContext(ctx, want.base)
		if err != nil {
			return wrapErr(fmt.Errorf("update settings of %s: %w", uid, err))
		}
		if err := e.wait(ctx, info); err != nil {
			return fmt.Errorf("update settings of %s: %w", uid, err)
		}
		if info, err = e.client.Index(uid).UpdateFacetSearchWithContext(ctx, want.facetSearch); err != nil {
			return wrapErr(fmt.Errorf("update facet search of %s: %w", uid, err))
		}
		if err := e.wait(ctx, info); err != nil {
			return fmt.Errorf("update facet search of %s: %w", uid, err)
		}
		if info, err = e.client.Index(uid).UpdateFilterableAttributesWithContext(ctx, &want.filterable); err != nil {
			return wrapErr(fmt.Errorf("update filterable attributes of %s: %w", uid, err))
		}
		if err := e.wait(ctx, info); err != nil {
			return fmt.Errorf("update filterable attributes of %s: %w", uid, err)
		}
		pk := search.FieldID
		if info, err = e.client.Index(e.field).AddDocumentsWithContext(ctx, []fieldDoc{marker}, &meilisearch.DocumentOptions{PrimaryKey: &pk}); err != nil {
			return wrapErr(fmt.Errorf("record settings of %s: %w", uid, err))
		}
		if err := e.wait(ctx, info); err != nil {
			return fmt.Errorf("record settings of %s: %w", uid, err)
		}
		e.log.Info("search index settings updated", "index", uid)
	}
	e.mu.Lock()
	e.settings[scope] = want
	e.mu.Unlock()
	return nil
}

// indexSettingsOf returns what a scope's index allows.
func (e *Engine) indexSettingsOf(scope search.Scope) *indexSettings {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.settings[scope]
}

// fieldDoc is one catalogue entry in the fields index.
type fieldDoc struct {
	ID    string `json:"_id"`
	Scope string `json:"scope"`
	Path  string `json:"path"`
	Kinds int    `json:"kinds"`
}

func fieldID(scope search.Scope, path string) string {
	h := sha256.Sum256([]byte(string(scope) + "\x00" + path))
	return hex.EncodeToString(h[:16])
}

// catalogue returns the known fields of a scope, read from the fields index
// (shared by every process using the server).
func (e *Engine) catalogue(ctx context.Context, scope search.Scope, reload bool) (*search.Catalogue, bool, error) {
	c, fresh, err := e.cached(ctx, scope, reload)
	if err != nil {
		return nil, false, err
	}
	return c.cat, fresh, nil
}

func (e *Engine) cached(ctx context.Context, scope search.Scope, reload bool) (cachedCatalogue, bool, error) {
	e.mu.Lock()
	c, ok := e.cats[scope]
	e.mu.Unlock()
	if ok && !reload && time.Since(c.loaded) < catalogueTTL {
		return c, false, nil
	}
	now := time.Now()
	cats := map[search.Scope]cachedCatalogue{
		search.ScopeItems:    {cat: search.NewCatalogue(search.ScopeItems), seen: map[string]bool{}, loaded: now},
		search.ScopeSegments: {cat: search.NewCatalogue(search.ScopeSegments), seen: map[string]bool{}, loaded: now},
	}
	const page = 1000
	for offset := int64(0); ; offset += page {
		var res meilisearch.DocumentsResult
		err := e.client.Index(e.field).GetDocumentsWithContext(ctx, &meilisearch.DocumentsQuery{Offset: offset, Limit: page}, &res)
		if err != nil {
			return cachedCatalogue{}, false, wrapErr(fmt.Errorf("load search fields: %w", err))
		}
		for _, h := range res.Results {
			var f fieldDoc
			raw, _ := json.Marshal(h)
			if err := json.Unmarshal(raw, &f); err != nil {
				return cachedCatalogue{}, false, fmt.Errorf("load search fields: %w", err)
			}
			if c, ok := cats[search.Scope(f.Scope)]; ok {
				c.cat.Add(f.Path, search.Kind(f.Kinds))
				c.seen[f.Path] = true
			}
		}
		if int64(len(res.Results)) < page {
			break
		}
	}
	e.mu.Lock()
	for s, c := range cats {
		e.cats[s] = c
	}
	e.mu.Unlock()
	return cats[scope], true, nil
}

// learn records the paths of prepared documents (fields index, then this
// process's copy), so that requests naming them are valid. It changes no
// index setting (see fields.go).
func (e *Engine) learn(ctx context.Context, scope search.Scope, docs []*search.Prepared) error {
	cur, _, err := e.cached(ctx, scope, false)
	if err != nil {
		return err
	}
	next := cachedCatalogue{cat: cur.cat.Clone(), seen: maps.Clone(cur.seen), loaded: cur.loaded}
	var added []fieldDoc
	for _, p := range docs {
		changed := next.cat.Merge(p)
		for path := range p.Kinds {
			if !next.seen[path] || changed[path] != 0 {
				if k, ok := next.cat.Kind(path); ok {
					next.seen[path] = true
					added = append(added, fieldDoc{ID: fieldID(scope, path), Scope: string(scope), Path: path, Kinds: int(k)})
				}
			}
		}
	}
	if len(added) == 0 {
		return nil
	}
	pk := search.FieldID
	info, err := e.client.Index(e.field).AddDocumentsWithContext(ctx, added, &meilisearch.DocumentOptions{PrimaryKey: &pk})
	if err != nil {
		return wrapErr(fmt.Errorf("record search fields: %w", err))
	}
	if err := e.wait(ctx, info); err != nil {
		return fmt.Errorf("record search fields: %w", err)
	}
	e.mu.Lock()
	if c, ok := e.cats[scope]; ok && c.cat == cur.cat {
		e.cats[scope] = next
	} else {
		delete(e.cats, scope)
	}
	e.mu.Unlock()
	return nil
}

// Reset deletes the three indexes and creates them again.
func (e *Engine) Reset(ctx context.Context) error {
	if err := e.Drop(ctx); err != nil {
		return err
	}
	return e.ensure(ctx)
}

// Drop deletes the engine's indexes (tests; an uninstall). The engine is
// unusable until Reset.
func (e *Engine) Drop(ctx context.Context) error {
	for _, uid := range []string{e.items, e.segments, e.field} {
		info, err := e.client.DeleteIndexWithContext(ctx, uid)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return wrapErr(fmt.Errorf("delete index %s: %w", uid, err))
		}
		if err := e.wait(ctx, info); err != nil {
			return fmt.Errorf("delete index %s: %w", uid, err)
		}
	}
	e.mu.Lock()
	e.cats = map[search.Scope]cachedCatalogue{}
	e.settings = map[search.Scope]*indexSettings{}
	e.mu.Unlock()
	e.writes.mu.Lock()
	e.writes.pending, e.writes.retry = nil, nil
	e.writes.mu.Unlock()
	return nil
}

// wait blocks until a task is done and reports its failure.
func (e *Engine) wait(ctx context.Context, info *meilisearch.TaskInfo) error {
	task, err := e.client.WaitForTaskWithContext(ctx, info.TaskUID, taskPoll)
	if err != nil {
		return wrapErr(fmt.Errorf("wait for task %d: %w", info.TaskUID, err))
	}
	if task.Status != meilisearch.TaskStatusSucceeded {
		return fmt.Errorf("task %d (%s) %s: %s (%s)", task.UID, task.Type, task.Status, task.Error.Message, task.Error.Code)
	}
	return nil
}

func isNotFound(err error) bool {
	var me *meilisearch.Error
	return errors.As(err, &me) && me.StatusCode == http.StatusNotFound
}

// wrapErr turns an unreachable or failing server into search.Unavailable
// (503); refused requests stay internal errors (a translation bug).
func wrapErr(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var me *meilisearch.Error
	if errors.As(err, &me) {
		switch me.ErrCode {
		case meilisearch.MeilisearchCommunicationError, meilisearch.MeilisearchTimeoutError, meilisearch.MeilisearchMaxRetriesExceeded:
			return search.Unavailable(err)
		}
		if me.StatusCode >= 500 {
			return search.Unavailable(err)
		}
		return err
	}
	return search.Unavailable(err)
}
