package store

import (
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
)

// A location's containers and their counts follow the visibility rule: a
// container restricted to a group the viewer is not in is neither listed
// nor counted; an administrator sees and counts it.
func TestLocationContainersFollowVisibility(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	must := mustFor(t)
	must(db.Create(&models.Group{ID: "g1", Name: "one"}).Error)
	must(db.Create(&models.Location{ID: "l1", Kind: "filesystem", Name: "L1", Config: models.JSON(`{}`)}).Error)
	must(db.Create(&models.Location{ID: "l2", Kind: "filesystem", Name: "L2", Config: models.JSON(`{}`)}).Error)
	for _, c := range []models.Container{{ID: "l1/b", LocationID: "l1", Name: "b"}, {ID: "l1/a", LocationID: "l1", Name: "a"},
		{ID: "l1/hidden", LocationID: "l1", Name: "hidden"}, {ID: "l2/x", LocationID: "l2", Name: "x"}} {
		must(db.Create(&c).Error)
	}
	must(db.Create(&models.ContainerGroup{ContainerID: "l1/hidden", GroupID: "g1"}).Error)

	user, admin := Viewer{UserID: "u"}, Viewer{Admin: true}
	rows, err := LocationContainers(db, user, "l1")
	must(err)
	if len(rows) != 2 || rows[0].Name != "a" || rows[1].Name != "b" {
		t.Errorf("user sees %+v, want a and b", rows)
	}
	if rows, _ := LocationContainers(db, admin, "l1"); len(rows) != 3 {
		t.Errorf("admin sees %d containers, want 3", len(rows))
	}
	n, err := ContainerCounts(db, user, []string{"l1", "l2", "l3"})
	must(err)
	if n["l1"] != 2 || n["l2"] != 1 || n["l3"] != 0 {
		t.Errorf("user counts %v", n)
	}
	if n, _ := ContainerCounts(db, Viewer{UserID: "u", Groups: []string{"g1"}}, []string{"l1"}); n["l1"] != 3 {
		t.Errorf("member of g1 counts %v", n)
	}
}
