package store

import (
	"slices"
	"testing"

	"github.com/metaharvest/metaharvest/internal/testdb"
	"github.com/metaharvest/metaharvest/models"
)

// A request's user and its role's scopes come in one statement: an
// enabled user with its role's scopes, whole; a user whose role has no
// scope with none; a disabled or unknown user not at all. With an API key,
// only when the key is the user's, active, and of that token hash.
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

	u, scopes, ok, err := EnabledUserScopes(db, "u1", nil)
	must(err)
	if !ok || u.ID != "u1" || u.Email != "one@example.org" || u.FirstName != "One" || u.RoleID != "editors" || !u.Enabled {
		t.Errorf("u1: ok %v, user %+v", ok, u)
	}
	if slices.Sort(scopes); !slices.Equal(scopes, []string{"items:write", "search:read"}) {
		t.Errorf("u1's scopes %v", scopes)
	}
	u, scopes, ok, err = EnabledUserScopes(db, "u2", nil)
	must(err)
	if !ok || u.ID != "u2" || len(scopes) != 0 {
		t.Errorf("u2 (a role without scopes): ok %v, user %s, scopes %v", ok, u.ID, scopes)
	}
	for _, id := range []string{"u3", "nobody"} {
		if _, _, ok, err := EnabledUserScopes(db, id, nil); err != nil || ok {
			t.Errorf("%s: ok %v, err %v; want no user", id, ok, err)
		}
	}

	must(db.Create(&models.APIKey{ID: "k1", Name: "script", UserID: "u1", TokenHash: "h1", Active: true}).Error)
	must(db.Create(&models.APIKey{ID: "k2", Name: "old", UserID: "u1", TokenHash: "h2", Active: true}).Error)
	must(db.Model(&models.APIKey{}).Where("id = ?", "k2").Update("active", false).Error)
	must(db.Create(&models.APIKey{ID: "k3", Name: "u3's", UserID: "u3", TokenHash: "h3", Active: true}).Error)
	if u, scopes, ok, err := EnabledUserScopes(db, "u1", &KeyCheck{ID: "k1", TokenHash: "h1"}); err != nil || !ok || u.ID != "u1" || len(scopes) != 2 {
		t.Errorf("u1 with its key: ok %v, user %s, scopes %v, err %v", ok, u.ID, scopes, err)
	}
	for _, c := range []struct {
		user string
		key  KeyCheck
		why  string
	}{
		{"u1", KeyCheck{ID: "k1", TokenHash: "h2"}, "another token's hash"},
		{"u1", KeyCheck{ID: "k2", TokenHash: "h2"}, "a key no longer active"},
		{"u2", KeyCheck{ID: "k1", TokenHash: "h1"}, "another user's key"},
		{"u3", KeyCheck{ID: "k3", TokenHash: "h3"}, "a disabled user's key"},
		{"u1", KeyCheck{ID: "k9", TokenHash: "h1"}, "a key that is gone"},
	} {
		if _, _, ok, err := EnabledUserScopes(db, c.user, &c.key); err != nil || ok {
			t.Errorf("%s: ok %v, err %v; want no user", c.why, ok, err)
		}
	}
}
