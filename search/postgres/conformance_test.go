package postgres_test

import (
	"testing"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/search"
	"github.com/metaharvest/metaharvest/search/postgres"
	"github.com/metaharvest/metaharvest/search/searchtest"
)

func newEngine(t testing.TB) *postgres.Engine {
	t.Helper()
	e, _ := newEngineDB(t)
	return e
}

func newEngineDB(t testing.TB) (*postgres.Engine, *gorm.DB) {
	t.Helper()
	db := testdb.New(t)
	e, err := postgres.New(db)
	if err != nil {
		t.Fatal(err)
	}
	return e, db
}

func TestConformance(t *testing.T) {
	t.Parallel()
	searchtest.Run(t, func(t *testing.T) search.Engine { return newEngine(t) })
}
