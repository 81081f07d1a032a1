package web

import (
	"net/http"

	"github.com/metaharvest/metaharvest/internal/access"
	"github.com/metaharvest/metaharvest/internal/store"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/storage"
)

// locationPage is GET /storage/{id}: a location's settings, its edit form
// and delete (with locations:write), and its recorded containers with
// live harvest (the container's "enabled") on and off (containers:write).
// js/storage.js makes the changes through the api (PUT and DELETE
// /api/data/v3/locations/:id, PUT /api/data/containers).
type locationPage struct {
	base
	Location      locationView
	Version       int
	Fields        []configField
	Containers    []containerView
	CanWrite      bool   // locations:write
	CanContainers bool   // containers:read
	CanToggle     bool   // containers:write
	UploadHref    string // the upload page, on the upload store's page for users who may upload
}

type containerView struct {
	ID, Name       string
	Enabled        bool
	LastHarvested  string
	Harvested      int64
	Failed         int64
	LastFailure    string
	CurrentRequest string
}

func (u *UI) locationPage(w http.ResponseWriter, r *http.Request, p *access.Principal) error {
	l, v, err := visibleByPath(u, r, p, store.Location, func(l models.Location) (string, string) { return l.ID, "" })
	if err != nil {
		return err
	}
	ctx := r.Context()
	db := u.DB.WithContext(ctx)
	view, err := locationOf(l)
	if err != nil {
		return err
	}
	page := &locationPage{base: u.base(r, p, l.Name), Location: view, Version: l.Version,
		CanWrite: p.Can("locations:write"), CanContainers: p.Can("containers:read"), CanToggle: p.Can("containers:write")}
	page.Nav = "storage"
	if l.Kind == storage.KindUploadStore && p.Can("uploads:write") {
		page.UploadHref = "/upload"
	}
	page.Styles = []string{u.assets.url("css/storage.css")}
	page.Scripts = []string{u.assets.url("js/storage.js")}
	if page.CanWrite {
		cfg, err := storedSettings(l)
		if err != nil {
			return err
		}
		if k, ok := kindOf(l.Kind); ok {
			page.Fields = kindFields(k, "edit", cfg)
		}
	}
	if page.CanContainers {
		rows, err := store.LocationContainers(db, v, l.ID)
		if err != nil {
			return err
		}
		for _, c := range rows {
			cv := containerView{ID: c.ID, Name: c.Name, Enabled: c.Enabled, Harvested: c.HarvestSuccessCount,
				Failed: c.HarvestFailureCount, CurrentRequest: c.RequestID}
			if c.LastHarvested != nil {
				cv.LastHarvested = c.LastHarvested.UTC().Format("2006-01-02 15:04 UTC")
			}
			if c.LastHarvestedFailure != nil {
				cv.LastFailure = c.LastHarvestedFailure.UTC().Format("2006-01-02 15:04 UTC")
			}
			page.Containers = append(page.Containers, cv)
		}
	}
	u.render(w, r, http.StatusOK, "location", page)
	return nil
}
