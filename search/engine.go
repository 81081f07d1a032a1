package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/store"
)

// Wrapper is an engine that wraps another (Lazy, Observed). Unwrap returns
// the wrapped engine, or nil while there is none yet (Lazy before it
// opened it).
type Wrapper interface {
	Unwrap() Engine
}

// As finds, through wrappers, the engine that implements T (the optional
// interfaces of one backend: Pacer, Meilisearch's Sync), so that wrapping
// an engine never hides what it can do.
func As[T any](e Engine) (T, bool) {
	for e != nil {
		if t, ok := e.(T); ok {
			return t, true
		}
		w, ok := e.(Wrapper)
		if !ok {
			break
		}
		e = w.Unwrap()
	}
	var none T
	return none, false
}

// Engine is a search backend. The api searches through it and the workers feed
// it (through Drain). Implementations enforce Visibility themselves: a caller
// never sees a document or segment its groups do not allow, whatever the
// request says.
type Engine interface {
	// Name is "postgres" or "meili".
	Name() string
	// Ping reports whether the engine answers; the api answers 503 when it does not.
	Ping(ctx context.Context) error

	// Upsert adds or replaces documents (by _id). When it returns nil the
	// engine has them: the Postgres engine's are searchable at once;
	// Meilisearch has accepted the task, durably, and they are searchable a
	// moment later (callers that must read their writes wait through the
	// engine's Sync where it has one). It also refreshes the visibility
	// lists of the segments of these items.
	Upsert(ctx context.Context, docs []Document) error
	// Delete removes documents by _id; unknown ids are ignored.
	Delete(ctx context.Context, ids []string) error
	// Search runs a request. Invalid requests give an *apperr.Error (400).
	Search(ctx context.Context, req Request, vis Visibility) (*Response, error)

	// UpsertSegments adds or replaces segments (by _id).
	UpsertSegments(ctx context.Context, segs []Segment) error
	// DeleteSegmentsOfItems removes every segment of the given items.
	DeleteSegmentsOfItems(ctx context.Context, itemIDs []string) error
	// SearchSegments runs a segment search.
	SearchSegments(ctx context.Context, req SegmentRequest, vis Visibility) (*SegmentResponse, error)
	// GetSegment returns one segment, ErrNotFound when there is none with that
	// id, ErrNotVisible when the caller may not see it.
	GetSegment(ctx context.Context, id string, vis Visibility) (*Segment, error)

	// Analytics counts the visible documents by category (see Analytics).
	Analytics(ctx context.Context, vis Visibility) (*Analytics, error)

	// Reset drops every document, segment and known field: the index is
	// rebuilt from Postgres afterwards (Reindex).
	Reset(ctx context.Context) error
}

// Visibility says which documents a caller may see. Admins see All; other
// callers see a document when each of its group lists (location groups,
// container groups) is empty or shares a group with GroupIDs.
type Visibility struct {
	All      bool
	GroupIDs []string
}

// Allows applies the visibility rule to a document's group lists.
func (v Visibility) Allows(locationGroups, containerGroups []string) bool {
	if v.All {
		return true
	}
	return v.allowsList(locationGroups) && v.allowsList(containerGroups)
}

func (v Visibility) allowsList(groups []string) bool {
	if len(groups) == 0 {
		return true
	}
	for _, g := range groups {
		if slices.Contains(v.GroupIDs, g) {
			return true
		}
	}
	return false
}

var (
	// ErrNotFound: no object with that id (the api answers 404).
	ErrNotFound = errors.New("search: not found")
	// ErrNotVisible: the object exists but the caller may not see it (403).
	ErrNotVisible = errors.New("search: not visible to the caller")
)

// Unavailable marks err as the engine being down or unreachable: the result
// matches *apperr.Error (503) with errors.As and keeps err for the logs.
func Unavailable(err error) error {
	return fmt.Errorf("%w: %w", apperr.Unavailable("the search engine is unavailable"), err)
}

// Config selects and configures an engine for Open.
type Config struct {
	// DB is the Postgres handle. The postgres backend keeps its index in it;
	// every backend needs it for the outbox (Drain, Reindex).
	DB *store.DB
	// MeiliURL selects the Meilisearch backend when set (MEILI_URL).
	MeiliURL string
	// MeiliAPIKey authenticates against Meilisearch (MEILI_API_KEY). Secret.
	MeiliAPIKey string
	// MeiliIndexPrefix prefixes the Meilisearch index names, so that several
	// deployments (or tests) can share one server. Default "metaharvest_".
	MeiliIndexPrefix string
	// Logger receives the few events an engine logs on its own (settings
	// updates). Default: slog.Default().
	Logger *slog.Logger
}

// Opener builds an engine from a Config.
type Opener func(cfg Config) (Engine, error)

var (
	backendsMu sync.RWMutex
	backends   = map[string]Opener{}
)

// Register makes a backend available to Open under name. The backends register
// themselves from an init function (search/postgres as "postgres", search/meili
// as "meili"), as database/sql drivers do: search cannot import them, since
// they import search. Registering a name twice panics.
func Register(name string, open Opener) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if _, dup := backends[name]; dup {
		panic("search: backend registered twice: " + name)
	}
	backends[name] = open
}

// Backends lists the registered backend names.
func Backends() []string {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open returns the Meilisearch engine when cfg.MeiliURL is set, else the
// Postgres engine on cfg.DB. The chosen backend's package must be linked in:
//
//	import (
//		_ "github.com/metaharvest/metaharvest/search/meili"
//		_ "github.com/metaharvest/metaharvest/search/postgres"
//	)
func Open(cfg Config) (Engine, error) {
	name := "postgres"
	if cfg.MeiliURL != "" {
		name = "meili"
	}
	backendsMu.RLock()
	open := backends[name]
	backendsMu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("open search engine: backend %q is not linked in (import _ \"github.com/metaharvest/metaharvest/search/%s\")", name, name)
	}
	if name == "postgres" && cfg.DB == nil {
		return nil, errors.New("open search engine: postgres backend needs a database")
	}
	e, err := open(cfg)
	if err != nil {
		return nil, fmt.Errorf("open search engine %s: %w", name, err)
	}
	return e, nil
}
