package store

import (
	"slices"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
)

// A request's user and its role's scopes come in one statement: an
// enabled user with its role's scopes, whole; a user whose role has no
// scope with none; a disabled or unknown user not at all.
func TestEnabledUserScopes(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	must := mustFor(t)
	must(db.Create(&models.Role{ID: "editors", Name: "editors", Scopes: models.Strings{"search:read", "items:write"}}).Error)
	must(db.Create(&models.User{ID: "u1", Email: "one@example.org", FirstName: "One", Enabled: true, RoleID: "editors"}).Error)
	must(db.Create(&models.Role{ID: "nothing", Name: "nothing", Scopes: models.Strings{}}).Error)
	must(db.Create(&models.User{ID: "u2", Email: "two@example.org", Enabled: true, RoleID: "nothing"}).Error)
	must(db.Create(&models.User{ID: "u3", Email: "three@example.org", Enabled: true, RoleID: "editors"}).Error)
	must(db.Model(&models.User{}).Where("id = ?", "u3").Update("enabled", false).Error)

	u, scopes, ok, err := EnabledUserScopes(db, "u1")
	must(err)
	if !ok || u.ID != "u1" || u.Email != "one@example.org" || u.FirstName != "One" || u.RoleID != "editors" || !u.Enabled {
		t.Errorf("u1: ok %v, user %+v", ok, u)
	}
	if slices.Sort(scopes); !slices.Equal(scopes, []string{"items:write", "search:read"}) {
		t.Errorf("u1's scopes %v", scopes)
	}
	u, scopes, ok, err = EnabledUserScopes(db, "u2")
	must(err)
	if !ok || u.ID != "u2" || len(scopes) != 0 {
		t.Errorf("u2 (a role without scopes): ok %v, user %s, scopes %v", ok, u.ID, scopes)
	}
	for _, id := range []string{"u3", "nobody"} {
		if _, _, ok, err := EnabledUserScopes(db, id); err != nil || ok {
			t.Errorf("%s: ok %v, err %v; want no user", id, ok, err)
		}
	}
}
