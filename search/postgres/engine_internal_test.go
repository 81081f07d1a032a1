package postgres

import (
	"testing"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/testdb"
)

// newTestEngine is an engine on a database of its own, for the tests
// inside the package (the others use newEngineDB).
func newTestEngine(t *testing.T) (*Engine, *gorm.DB) {
	t.Helper()
	db := testdb.New(t)
	e, err := New(db)
	if err != nil {
		t.Fatal(err)
	}
	return e, db
}
