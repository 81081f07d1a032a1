package web

import (
	"net/http"
	"time"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
)

// keysPage is GET /admin/keys: the API keys the user may manage, as the
// api lists them (their own; every key for an administrator, with its
// owner). A key's secret is never stored: admin.js shows the one the api
// answers on creation, once.
type keysPage struct {
	adminBase
	Can       can
	Keys      []keyRow
	ShowOwner bool
}

type keyRow struct {
	ID, Name, Owner, Created string
	Active                   bool
}

func (u *UI) adminKeysPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	ctx := r.Context()
	db := u.DB.WithContext(ctx)
	v, err := p.Viewer(ctx, u.DB)
	if err != nil {
		return err
	}
	keys, err := store.APIKeys(db, v)
	if err != nil {
		return err
	}
	page := &keysPage{adminBase: u.adminBase(r, p, "API keys", "keys"), Can: scopesOf(p, "apikeys:write"), ShowOwner: v.Admin}
	var owners map[string]store.UserSummary
	if v.Admin {
		ids := make([]string, 0, len(keys))
		for _, k := range keys {
			ids = append(ids, k.UserID)
		}
		if owners, err = store.UserSummaries(db, ids); err != nil {
			return err
		}
	}
	for _, k := range keys {
		row := keyRow{ID: k.ID, Name: k.Name, Active: k.Active, Created: k.CreatedAt.UTC().Format(time.DateTime) + " UTC"}
		if v.Admin {
			row.Owner = "(deleted user)"
			if o, ok := owners[k.UserID]; ok {
				row.Owner = o.Email
			}
		}
		page.Keys = append(page.Keys, row)
	}
	u.render(w, r, http.StatusOK, "admin_keys", page)
	return nil
}
