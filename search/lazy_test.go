package search_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/apperr"
	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
)

// A lazily opened engine answers 503 while its server is down and serves
// once it is back, without a restart.
func TestLazyEngineRecovers(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	up := false
	opens := 0
	eng := search.Lazy("test", func(context.Context) (search.Engine, error) {
		opens++
		if !up {
			return nil, errors.New("connection refused")
		}
		return postgres.New(db)
	})
	ctx := context.Background()
	_, err := eng.Search(ctx, search.Request{}, search.Visibility{All: true})
	if e, ok := apperr.As(err); !ok || e.Status != http.StatusServiceUnavailable {
		t.Fatalf("engine down: %v", err)
	}
	// A second call within a second does not hammer the server.
	eng.Search(ctx, search.Request{}, search.Visibility{All: true})
	if opens != 1 {
		t.Fatalf("opened %d times within a second", opens)
	}
	up = true
	// It tries again a second after its last failure; the deadline leaves
	// room for a machine busy with other tests.
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := eng.Search(ctx, search.Request{}, search.Visibility{All: true})
		if err == nil && res.TotalHits == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("engine did not recover: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if eng.Name() != "test" {
		t.Fatal(eng.Name())
	}
}
