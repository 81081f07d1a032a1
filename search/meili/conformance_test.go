package meili_test

import (
	"context"
	"os"
	"testing"
	"time"

	_ "github.com/metaharvest/metaharvest/extractors/families" // the declared fields, as in production
	"github.com/metaharvest/metaharvest/internal/testmeili"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/meili"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

func TestMain(m *testing.M) { os.Exit(testmeili.RunMain(m)) }

// newEngine is an engine with indexes of its own on the test binary's
// Meilisearch server, deleted when the test ends.
func newEngine(t *testing.T) *meili.Engine {
	t.Helper()
	e, _, _ := newEngineOn(t)
	return e
}

// newEngineOn is newEngine, with the server and the engine's index
// prefix, for tests that also write to Meilisearch as another process
// would.
func newEngineOn(t *testing.T) (*meili.Engine, *testmeili.Server, string) {
	t.Helper()
	srv := testmeili.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := testmeili.Prefix(t)
	e, err := meili.New(ctx, meili.Config{URL: srv.URL, APIKey: srv.Key, IndexPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Drop(context.Background()); err != nil {
			t.Logf("drop test indexes: %v", err)
		}
	})
	return e, srv, prefix
}

// TestConformance runs the shared suite against a real server (see
// internal/testmeili).
func TestConformance(t *testing.T) {
	t.Parallel()
	searchtest.Run(t, func(t *testing.T) search.Engine { return newEngine(t) })
}
