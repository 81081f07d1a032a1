package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search/postgres"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

func TestZZLoad(t *testing.T) {
	url := os.Getenv("ZZ_LOAD_URL")
	if url == "" {
		t.Skip()
	}
	db, err := models.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := postgres.New(db)
	c := searchtest.NewCorpus(100000, 7, time.Now())
	ctx := context.Background()
	for i := 0; i < len(c.Docs); i += 1000 {
		if err := e.Upsert(ctx, c.Docs[i:min(i+1000, len(c.Docs))]); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < len(c.Segments); i += 1000 {
		if err := e.UpsertSegments(ctx, c.Segments[i:min(i+1000, len(c.Segments))]); err != nil {
			t.Fatal(err)
		}
	}
}
