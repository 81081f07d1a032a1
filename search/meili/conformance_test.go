package meili_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/meili"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

// TestConformance runs the shared suite against a real server when MEILI_URL
// is set (MEILI_API_KEY optional). Each engine gets indexes of its own,
// deleted when the test ends.
func TestConformance(t *testing.T) {
	url := os.Getenv("MEILI_URL")
	if url == "" {
		t.Skip("MEILI_URL not set: no Meilisearch server to test against")
	}
	t.Parallel()
	searchtest.Run(t, func(t *testing.T) search.Engine {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		e, err := meili.New(ctx, meili.Config{
			URL: url, APIKey: os.Getenv("MEILI_API_KEY"),
			IndexPrefix: "mh_test_" + strings.ToLower(ids.New()[:12]) + "_",
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := e.Drop(context.Background()); err != nil {
				t.Logf("drop test indexes: %v", err)
			}
		})
		return e
	})
}
