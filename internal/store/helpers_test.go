package store

import (
	"testing"

	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/models"
)

// mustFor returns a check that ends t on an error.
func mustFor(t *testing.T) func(error) {
	return func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// seedContainer writes a filesystem location and one container of it.
func seedContainer(t *testing.T, db *gorm.DB, locationID, containerID string) {
	t.Helper()
	must := mustFor(t)
	must(db.Create(&models.Location{ID: locationID, Kind: "filesystem", Name: locationID, Config: models.JSON(`{}`)}).Error)
	must(db.Create(&models.Container{ID: containerID, LocationID: locationID, Name: containerID}).Error)
}
